import { timingSafeEqual } from 'node:crypto';
import { hashSecret } from '../crypto/ids.ts';
import { type ClientStore, SECRET_METHODS } from '../store/clients/store.ts';
import type { OAuthClient, OrganizationConfig } from '../store/types.ts';

export interface AuthenticatedClient {
  client: OAuthClient;
  /** The client's organisation configuration, read in the same look-up. */
  config: OrganizationConfig;
}

import { type AssertionContext, authenticateByAssertion, JWT_BEARER_ASSERTION } from './client-assertion.ts';
import type { ClientKeySets } from './client-key-sets.ts';
import { oauthError } from './errors.ts';
import type { OAuthParams } from './form.ts';
import type { SvidVerifierLike } from './grants/grant.ts';
import { authenticateBySvid, JWT_SPIFFE_ASSERTION, type SvidClientContext } from './spiffe-client-auth.ts';

/** What the assertion methods check against: private_key_jwt's and spiffe_jwt's. */
export type ClientAssertionContext = AssertionContext & SvidClientContext;

/** The assertion checks' issuer, clock, jwks_uri key sets and SVID verifier, from the OAuth endpoints' dependencies. */
export function assertionsOf(deps: {
  issuer: { readonly issuer: string };
  now: () => number;
  clientKeys: ClientKeySets;
  svids: SvidVerifierLike;
}): ClientAssertionContext {
  return { issuer: () => deps.issuer.issuer, now: deps.now, clientKeys: deps.clientKeys, svids: deps.svids };
}

/**
 * client_secret_basic or client_secret_post (RFC 6749 §2.3.1), private_key_jwt
 * (client-assertion.ts) or spiffe_jwt (spiffe-client-auth.ts); undefined when the request carries no client credentials at all
 * (clientless token exchange). Using two methods at once is refused, as is a client_id
 * without a secret, and a method other than the one the client is registered with.
 */
export async function authenticateClient(
  store: Pick<ClientStore, 'findClientWithConfig' | 'spendClientAssertion' | 'findClientsBySpiffeId'>,
  authorization: string | undefined,
  params: OAuthParams,
  assertions: ClientAssertionContext,
): Promise<AuthenticatedClient | undefined> {
  if (params.has('client_assertion') || params.has('client_assertion_type')) {
    if (authorization !== undefined || params.has('client_secret'))
      throw oauthError('invalid_request', 'use one client authentication method: a client assertion, HTTP Basic or client_secret, not two');
    const type = params.require('client_assertion_type');
    if (type === JWT_SPIFFE_ASSERTION) return authenticateBySvid(store, params, assertions);
    if (type !== JWT_BEARER_ASSERTION) throw oauthError('invalid_client', `client_assertion_type must be ${JWT_BEARER_ASSERTION} or ${JWT_SPIFFE_ASSERTION}`);
    return authenticateByAssertion(store, params, assertions);
  }
  let id: string | undefined;
  let secret: string | undefined;
  if (authorization !== undefined) {
    // Node's HTTP parser has taken the spaces and tabs around the value off (RFC 9110 §5.5).
    const match = /^Basic ([A-Za-z0-9+/]+=*)$/i.exec(authorization);
    if (!match) throw oauthError('invalid_client', 'the Authorization header must be HTTP Basic with the client id and secret');
    const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) throw oauthError('invalid_client', 'the Basic credentials must be client_id:client_secret');
    [id, secret] = [formDecode(decoded.slice(0, colon)), formDecode(decoded.slice(colon + 1))];
    if (params.has('client_secret'))
      throw oauthError('invalid_request', 'use one client authentication method: HTTP Basic or client_secret in the body, not both');
    if (params.has('client_id') && params.get('client_id') !== id)
      throw oauthError('invalid_request', 'client_id in the body differs from the HTTP Basic client');
  } else if (params.has('client_id') || params.has('client_secret')) {
    id = params.get('client_id');
    secret = params.get('client_secret');
    if (!id) throw oauthError('invalid_client', 'client_secret was sent without client_id');
    if (!secret) throw oauthError('invalid_client', 'client_id was sent without client_secret; this server has no public clients');
  } else {
    return undefined;
  }
  // An id with U+0000 names no client (and PostgreSQL could not even look it up).
  const found = id && id.length <= 64 && !id.includes('\u0000') ? await store.findClientWithConfig(id) : undefined;
  const attemptedClient = found && { id: found.client.id, orgId: found.client.orgId };
  // Before any comparison: a keyed client was given no secret, and is told what it must use.
  if (found && !SECRET_METHODS.includes(found.client.authMethod))
    throw oauthError('invalid_client', `the client is registered for ${found.client.authMethod}; it has no secret`, { attemptedClient });
  if (!found || !secret || !sameHash(found.client.secretHash, hashSecret(secret))) {
    throw oauthError('invalid_client', 'client authentication failed', { attemptedClient });
  }
  return found;
}

function sameHash(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** RFC 6749 §2.3.1: Basic credentials are form-urlencoded before base64. */
function formDecode(value: string): string {
  try {
    return decodeURIComponent(value.replace(/\+/g, ' '));
  } catch {
    throw oauthError('invalid_client', 'the Basic credentials are not valid form encoding');
  }
}
