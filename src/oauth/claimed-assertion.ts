import { decodeJwt } from 'jose';
import { oauthError } from './errors.ts';
import type { OAuthParams } from './form.ts';

/**
 * The request's client_assertion and the `sub` it claims, read before any signature is checked:
 * the subject names the client (private_key_jwt) or the workload (spiffe_jwt) whose keys will
 * verify it. Not a JWT at all is invalid_client, as every client authentication failure is.
 */
export function claimedAssertion(params: OAuthParams): { assertion: string; sub: unknown } {
  const assertion = params.require('client_assertion');
  try {
    return { assertion, sub: decodeJwt(assertion).sub };
  } catch {
    throw oauthError('invalid_client', 'client_assertion is not a JWT');
  }
}
