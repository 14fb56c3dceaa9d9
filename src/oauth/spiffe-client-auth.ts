import type { ClientStore, OAuthClient } from '../store/clients/store.ts';
import type { OrganizationConfig } from '../store/organizations/store.ts';
import { claimedAssertion } from './claimed-assertion.ts';
import { oauthError } from './errors.ts';
import type { OAuthParams } from './form.ts';
import type { SvidVerifierLike } from './grants/grant.ts';
import { parseWorkloadSpiffeId } from './spiffe/spiffe-id.ts';
import { SvidError } from './spiffe/svid-error.ts';

/** draft-ietf-oauth-spiffe-client-auth-02 §3.1's client_assertion_type. */
export const JWT_SPIFFE_ASSERTION = 'urn:ietf:params:oauth:client-assertion-type:jwt-spiffe';
/** Organisations that registered one SPIFFE ID, tried without client_id; more must send it. */
const MAX_CANDIDATES = 5;

/** What an SVID is checked against: the issuer identifier its `aud` must name, and the trust-domain key sets. */
export interface SvidClientContext {
  issuer: () => string;
  svids: Pick<SvidVerifierLike, 'verifyIdentity'>;
}

interface AssertedClient {
  client: OAuthClient;
  config: OrganizationConfig;
}

/**
 * SPIFFE JWT-SVID client authentication (draft-ietf-oauth-spiffe-client-auth-02 §3.1, design
 * §4): the client registered for spiffe_jwt whose spiffe_id is the SVID's `sub` and whose
 * organisation's trust domain signed it (client_id is optional); the SVID verified as an actor
 * SVID is, against that organisation's trust-domain key sets. Its `aud` must
 * contain the issuer identifier and may name nothing but this service (the issuer and its token
 * endpoint, so that the gateway's one SVID serves as both actor and client assertion): an SVID
 * also meant for another service could be replayed here by it. SVIDs are reused by design, so no
 * jti is spent.
 */
export async function authenticateBySvid(
  store: Pick<ClientStore, 'findClientWithConfig' | 'findClientsBySpiffeId'>,
  params: OAuthParams,
  context: SvidClientContext,
): Promise<AssertedClient> {
  const { assertion, sub } = claimedAssertion(params);
  if (!parseWorkloadSpiffeId(sub)) throw oauthError('invalid_client', "client_assertion's sub must be the SPIFFE ID of a workload");
  const spiffeId = sub as string;
  const issuer = context.issuer();
  const candidates = await clientsFor(store, spiffeId, params);
  // Each candidate is checked against its own organisation's trust; the one whose trust domain
  // signed the SVID is the client. Another organisation registering the same SPIFFE ID cannot
  // lock this one's workloads out, unless it trusts the same bundle.
  const verified: AssertedClient[] = [];
  let refusal: unknown;
  for (const found of candidates) {
    try {
      await verifyFor(found, assertion, issuer, context);
      verified.push(found);
    } catch (error) {
      refusal ??= error;
    }
  }
  if (verified.length > 1) throw oauthError('invalid_client', "more than one client is registered for client_assertion's SPIFFE ID: send client_id");
  if (verified.length === 0) throw refusal ?? oauthError('invalid_client', 'client authentication failed');
  return verified[0]!;
}

/** SvidErrors only an SVID signed by a trusted key reaches: they describe the caller's own token. */
const AFTER_SIGNATURE = new Set(['SVID_EXPIRED', 'SVID_AUD_MISMATCH', 'SVID_NOT_YET_VALID', 'SVID_EXP_MISSING']);

async function verifyFor(found: AssertedClient, assertion: string, issuer: string, context: SvidClientContext): Promise<void> {
  const attemptedClient = { id: found.client.id, orgId: found.client.orgId };
  let aud: string | string[] | undefined;
  try {
    ({
      claims: { aud },
    } = await context.svids.verifyIdentity(assertion, found.config, issuer));
  } catch (error) {
    if (!(error instanceof SvidError)) throw error;
    if (error.code === 'SVID_JWKS_UNAVAILABLE')
      throw oauthError('temporarily_unavailable', `client_assertion: ${error.message}`, { retryAfterSeconds: error.retryAfterSeconds ?? 1, attemptedClient });
    // Before a trusted signature, the answer says nothing of the registration or the
    // organisation's trust (which SPIFFE IDs are registered, which trust domains trusted).
    throw oauthError('invalid_client', AFTER_SIGNATURE.has(error.code) ? `client_assertion: ${error.message}` : 'client authentication failed', {
      attemptedClient,
    });
  }
  const ours = new Set([issuer, `${issuer}/oauth2/tokens`]);
  if ((Array.isArray(aud) ? aud : [aud]).some((value) => !ours.has(value as string)))
    throw oauthError('invalid_client', "client_assertion's aud must name only this service: its issuer identifier (and, for an actor, its token endpoint)", {
      attemptedClient,
    });
}

/** The spiffe_jwt client the request names (client_id), or the clients registered for the SVID's SPIFFE ID (a few at most). */
async function clientsFor(
  store: Pick<ClientStore, 'findClientWithConfig' | 'findClientsBySpiffeId'>,
  spiffeId: string,
  params: OAuthParams,
): Promise<AssertedClient[]> {
  if (params.has('client_id')) {
    const id = params.get('client_id')!;
    const found = id.length <= 64 && !id.includes('\u0000') ? await store.findClientWithConfig(id) : undefined;
    if (found?.client.authMethod !== 'spiffe_jwt' || found.client.spiffeId !== spiffeId)
      throw oauthError('invalid_client', 'client authentication failed', { attemptedClient: found && { id: found.client.id, orgId: found.client.orgId } });
    return [found];
  }
  const candidates = await store.findClientsBySpiffeId(spiffeId, MAX_CANDIDATES);
  if (candidates.length === 0) throw oauthError('invalid_client', 'client authentication failed');
  return candidates;
}
