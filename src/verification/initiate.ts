import { newId } from '../crypto/ids.ts';
import { sendVerificationEmail } from '../email/send-verification-email.ts';
import { recordEvent } from '../store/audit/record-event.ts';
import type { Organization } from '../store/types.ts';
import { newVerificationCode } from './code.ts';
import { callerData, IDENTITY_INITIATE_LIMIT, identityKey, VERIFICATION_TTL_MS, type VerificationCaller, type VerificationDeps } from './deps.ts';
import { identityRateLimited } from './refusals.ts';
import { noVerifiableIdentity, verifiability } from './verifiable.ts';

export interface InitiateRequest {
  connection_id: string;
  identity_id?: string;
  email?: string;
}

/**
 * Starts a verification: the identity is read from its connection now (404 when it is not there
 * or not active), a fresh code goes to the address the directory holds — never one the caller
 * supplies — and any open verification of the identity is closed. A code that could not be
 * sent leaves nothing usable: the verification is closed and the answer is 502.
 */
export async function initiateVerification(
  deps: VerificationDeps,
  org: Organization,
  caller: VerificationCaller,
  body: InitiateRequest,
): Promise<{ verification_id: string; expires_at: string }> {
  const { store, directory, hasher, now } = deps;
  // Every door names exactly one of the two (identityNamedOnce; the console's send an identity_id).
  const by = body.identity_id !== undefined ? { identityId: body.identity_id } : { email: body.email as string };
  const audit = (outcome: string, reason: string | null, extra: Record<string, unknown> = {}) =>
    recordEvent(store, now(), org.id, 'verification.initiated', {
      ...callerData(caller),
      connection_id: body.connection_id,
      identity_id: 'identityId' in by ? by.identityId : null,
      outcome,
      reason,
      ...extra,
    });

  const verifiable = verifiability(await directory.lookup(org.id, body.connection_id, by));
  if (verifiable.reason !== null) {
    await audit('refused', verifiable.reason);
    throw noVerifiableIdentity(by);
  }
  const { identity } = verifiable;

  const limit = await store.takeRateLimit({
    orgId: org.id,
    key: identityKey('initiate', { connectionId: body.connection_id, identityId: identity.identityId }),
    now: now(),
    ...IDENTITY_INITIATE_LIMIT,
  });
  if (!limit.allowed) {
    await audit('refused', 'identity_rate_limited', { identity_id: identity.identityId });
    throw identityRateLimited(limit.retryAfterMs, 'codes sent');
  }

  const at = now();
  const id = newId('evf', at);
  const code = newVerificationCode();
  const verification = {
    id,
    orgId: org.id,
    connectionId: body.connection_id,
    identityId: identity.identityId,
    emailSentTo: identity.email,
    codeHash: hasher.hashCode(id, code),
    createdAt: at,
    expiresAt: at + VERIFICATION_TTL_MS,
    attempts: 0,
    state: 'open' as const,
    closedReason: null,
    endedAt: null,
  };
  const { replaced } = await store.createEmailVerification(verification);
  try {
    await sendVerificationEmail(deps.mailer, org, { to: identity.email, code, expiresAt: verification.expiresAt, now: at });
  } catch (error) {
    await store.closeEmailVerification(org.id, id, 'email_not_sent', now());
    await audit('failed', 'email_not_sent', { identity_id: identity.identityId, verification_id: id });
    throw error;
  }
  await audit('sent', null, { identity_id: identity.identityId, verification_id: id, replaced });
  return { verification_id: id, expires_at: new Date(verification.expiresAt).toISOString() };
}
