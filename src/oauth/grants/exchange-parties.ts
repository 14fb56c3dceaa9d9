import type { OAuthClient, OrganizationConfig } from '../../store/types.ts';
import { InvalidClient, InvalidGrant, InvalidRequest } from '../errors.ts';
import { TokenRejected, type OwnToken } from '../tokens/reader.ts';
import { TOKEN_TYPE, tokenShape, type TokenTypeUri } from '../tokens/token-types.ts';
import type { OAuthDeps } from './grant.ts';

const PERSON_ID = /^per_/;

/** Reads one of our tokens, checking that the declared type matches what it is. */
async function readOwn(deps: OAuthDeps, name: string, value: string, declared: TokenTypeUri): Promise<OwnToken> {
  const shape = tokenShape(value);
  if (shape === 'unknown') throw new InvalidGrant(`${name} is neither a JWT nor an access token of this server`);
  const actual = shape === 'jwt' ? TOKEN_TYPE.jwt : TOKEN_TYPE.accessToken;
  if (actual !== declared) throw new InvalidRequest(`${name}_type says ${declared} but the token is ${actual}`);
  try {
    return shape === 'jwt' ? await deps.reader.jwt(value) : await deps.reader.opaque(value);
  } catch (error) {
    if (error instanceof TokenRejected) throw new InvalidGrant(`${name} ${error.message}`);
    throw error;
  }
}

/**
 * The subject: a person JWT (or a JWT delegated from one) or an opaque token of this server.
 * An opaque subject is bound to the client it was issued to (RFC 6749 §6 style binding).
 */
export async function resolveSubject(deps: OAuthDeps, token: string, type: TokenTypeUri, client: OAuthClient | undefined): Promise<OwnToken> {
  const subject = await readOwn(deps, 'subject_token', token, type);
  if (subject.format === 'jwt' && !PERSON_ID.test(subject.subject)) {
    throw new InvalidGrant('a JWT subject_token must be a person token or one delegated from a person');
  }
  if (subject.format === 'opaque' && subject.clientId !== undefined) {
    if (!client) throw new InvalidClient('subject_token is bound to a client: authenticate as that client');
    if (client.id !== subject.clientId) throw new InvalidGrant('subject_token was issued to another client');
  }
  if (client && client.orgId !== subject.orgId) throw new InvalidGrant('subject_token belongs to another organisation than the client');
  return subject;
}

/**
 * The actor's identifier for the `act` claim: a person or client of this server (their JWT or
 * opaque token), a workload (its JWT-SVID), or else the authenticated client itself.
 */
export async function resolveActor(
  deps: OAuthDeps,
  actorToken: string | undefined,
  actorTokenType: TokenTypeUri | undefined,
  client: OAuthClient | undefined,
  orgId: string,
  config: OrganizationConfig,
): Promise<string> {
  if (actorToken === undefined || actorTokenType === undefined) {
    if (client) return client.id;
    throw new InvalidRequest('actor_token is required when the request is not authenticated as a client');
  }
  if (tokenShape(actorToken) === 'jwt' && !issuedHere(actorToken, deps.issuer.issuer)) {
    if (actorTokenType !== TOKEN_TYPE.jwt) throw new InvalidRequest(`actor_token_type says ${actorTokenType} but the token is ${TOKEN_TYPE.jwt}`);
    try {
      return (await deps.svids.verify(actorToken, config, `${deps.issuer.issuer}/oauth2/tokens`)).spiffeId;
    } catch (error) {
      if (error instanceof Error && 'code' in error && String(error.code).startsWith('SVID_')) throw new InvalidGrant(`actor_token: ${error.message}`);
      throw error;
    }
  }
  const actor = await readOwn(deps, 'actor_token', actorToken, actorTokenType);
  if (actor.orgId !== orgId) throw new InvalidGrant('actor_token belongs to another organisation than the subject');
  return actor.subject;
}

/** Peeks at the unverified `iss` only to route the token to the right verifier. */
function issuedHere(jwt: string, issuer: string): boolean {
  try {
    const payload = JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString('utf8')) as { iss?: unknown };
    return payload.iss === issuer;
  } catch {
    return false;
  }
}
