import type { DirectoryIdentity } from '../connections/directory-identity.ts';
import { recordEvent } from '../store/audit/record-event.ts';
import type { Organization } from '../store/types.ts';
import { callerData, OPERATOR_LIMIT, type VerificationCaller, type VerificationDeps } from './deps.ts';
import type { InitiateRequest } from './initiate.ts';
import { operatorRateLimited } from './refusals.ts';
import { noVerifiableIdentity, verifiability } from './verifiable.ts';

/**
 * The helpdesk's look-up before a code is sent: whom the directory holds under an email or id,
 * so that the verifier can see they have the right person. It reads the directory as a send
 * would, so it is audited (verification.lookup) and limited per operator like code checks: a
 * verifier cannot use it to page through a directory, nor (for scim_pull) to call the provider
 * without bound.
 */
export async function findIdentity(
  deps: VerificationDeps,
  org: Organization,
  caller: VerificationCaller,
  operatorId: string,
  body: InitiateRequest,
): Promise<DirectoryIdentity> {
  const { store, directory, now } = deps;
  const by = body.identity_id !== undefined ? { identityId: body.identity_id } : { email: body.email ?? '' };
  const audit = (outcome: string, reason: string | null, identityId: string | null) =>
    recordEvent(store, now(), org.id, 'verification.lookup', {
      ...callerData(caller),
      connection_id: body.connection_id,
      identity_id: identityId,
      outcome,
      reason,
    });

  const limit = await store.takeRateLimit({ orgId: org.id, key: `lookup-operator:${operatorId}`, now: now(), ...OPERATOR_LIMIT });
  if (!limit.allowed) {
    await audit('refused', 'operator_rate_limited', null);
    throw operatorRateLimited(limit.retryAfterMs);
  }
  const verifiable = verifiability(await directory.lookup(org.id, body.connection_id, by));
  if (verifiable.reason !== null) {
    await audit('not_found', verifiable.reason, verifiable.identity?.identityId ?? null);
    throw noVerifiableIdentity(by);
  }
  await audit('found', null, verifiable.identity.identityId);
  return verifiable.identity;
}
