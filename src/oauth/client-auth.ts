import { timingSafeEqual } from 'node:crypto';
import { hashSecret } from '../crypto/ids.ts';
import type { ClientStore } from '../store/clients/store.ts';
import type { OAuthClient, OrganizationConfig } from '../store/types.ts';

export interface AuthenticatedClient {
  client: OAuthClient;
  /** The client's organisation configuration, read in the same look-up. */
  config: OrganizationConfig;
}

import { oauthError } from './errors.ts';
import type { OAuthParams } from './form.ts';

/**
 * client_secret_basic or client_secret_post (RFC 6749 §2.3.1); undefined when the request
 * carries no client credentials at all (clientless token exchange). Using both methods at
 * once is refused, as is a client_id without a secret.
 */
export async function authenticateClient(
  store: Pick<ClientStore, 'findClientWithConfig'>,
  authorization: string | undefined,
  params: OAuthParams,
): Promise<AuthenticatedClient | undefined> {
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
  if (!found || !secret || !sameHash(found.client.secretHash, hashSecret(secret))) {
    throw oauthError('invalid_client', 'client authentication failed', { attemptedClient: found && { id: found.client.id, orgId: found.client.orgId } });
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
