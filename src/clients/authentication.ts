import type { JWK } from 'jose';
import { hostProblem, tenantUrlProblem } from '../egress/address-policy.ts';
import { invalidField } from '../errors/api-error.ts';
import { keyProblem, publicPart, repeatedKid } from '../oauth/client-keys.ts';
import { parseWorkloadSpiffeId } from '../oauth/spiffe/spiffe-id.ts';
import { type ClientAuthMethod, type OAuthClient, SECRET_METHODS } from '../store/clients/store.ts';

/** The members of a registration or a PATCH that say how the client authenticates (RFC 7591 names). */
export interface AuthenticationRequest {
  token_endpoint_auth_method?: ClientAuthMethod;
  jwks?: { keys: object[] };
  jwks_uri?: string;
  spiffe_id?: string;
}

/** What each method needs: its one source of keys or identity. */
const NEEDS: Record<ClientAuthMethod, readonly (keyof AuthenticationRequest)[]> = {
  client_secret_basic: [],
  client_secret_post: [],
  private_key_jwt: ['jwks', 'jwks_uri'],
  spiffe_jwt: ['spiffe_id'],
};
const MATERIAL = ['jwks', 'jwks_uri', 'spiffe_id'] as const;

/**
 * A method and what it uses, checked together (design §4): a secret method uses none of jwks,
 * jwks_uri and spiffe_id; private_key_jwt exactly one of jwks and jwks_uri; spiffe_jwt a
 * workload's spiffe_id. A jwks_uri must be https (loopback http in development only) and may
 * not name or resolve to the service's own networks; it is fetched when an assertion comes.
 */
export async function authenticationOf(
  request: AuthenticationRequest,
  { dev }: { dev: boolean },
): Promise<Pick<OAuthClient, 'authMethod' | 'jwks' | 'jwksUri' | 'spiffeId'>> {
  const authMethod = request.token_endpoint_auth_method ?? 'client_secret_basic';
  const needs = NEEDS[authMethod];
  for (const member of MATERIAL) {
    if (request[member] !== undefined && !needs.includes(member))
      throw invalidField(`body.${member}`, `is not used with token_endpoint_auth_method ${authMethod}`);
  }
  if (SECRET_METHODS.includes(authMethod)) return { authMethod };
  if (authMethod === 'spiffe_jwt') {
    if (request.spiffe_id === undefined)
      throw invalidField('body.spiffe_id', 'is required with token_endpoint_auth_method spiffe_jwt: the SPIFFE ID its JWT-SVIDs name as sub');
    if (!parseWorkloadSpiffeId(request.spiffe_id))
      throw invalidField('body.spiffe_id', "must be a workload's SPIFFE ID (spiffe://trust-domain/path, lower-case trust domain, no empty or dot segments)");
    return { authMethod, spiffeId: request.spiffe_id };
  }
  if (request.jwks === undefined && request.jwks_uri === undefined)
    throw invalidField('body.jwks', 'is required with token_endpoint_auth_method private_key_jwt, or jwks_uri: the public keys its assertions are signed with');
  if (request.jwks !== undefined && request.jwks_uri !== undefined)
    throw invalidField('body.jwks_uri', 'must not be given beside jwks: register the keys inline or where to fetch them, not both');
  if (request.jwks_uri !== undefined) {
    const problem = tenantUrlProblem(request.jwks_uri, { dev, allowQuery: true }) ?? (await hostProblem(new URL(request.jwks_uri), { allowLoopback: dev }));
    if (problem) throw invalidField('body.jwks_uri', problem);
    // Stored as the URL parser reads it: `https://a.example\@127.0.0.1/` is a.example, and must read so in the audit and the console.
    return { authMethod, jwksUri: new URL(request.jwks_uri).href };
  }
  const keys = request.jwks!.keys as JWK[];
  for (const [index, key] of keys.entries()) {
    const problem = await keyProblem(key, keys.length);
    if (problem) throw invalidField(`body.jwks.keys[${index}]${problem.member ? `.${problem.member}` : ''}`, problem.rule);
  }
  const repeated = repeatedKid(keys);
  if (repeated) throw invalidField(`body.jwks.keys[${repeated.index}].kid`, 'must differ from every other key of jwks');
  // Only what verifying needs is stored: the cache of imported keys and every read stay small.
  return { authMethod, jwks: { keys: keys.map(publicPart) } };
}
