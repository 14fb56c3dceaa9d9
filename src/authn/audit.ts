import { recordEvent } from '../store/audit/record-event.ts';
import type { AuditStore } from '../store/audit/store.ts';

export type AttemptOutcome = 'success' | 'failure' | 'refused';

/** One authentication attempt as the audit log keeps it: who and how, never what was typed. */
export interface AttemptRecordInput {
  orgId: string;
  /** The challenge: password, totp, recovery_code, webauthn. */
  method: string;
  /** null when the handle named nobody. */
  personId: string | null;
  /** The credential that matched or was tried; null when none did. */
  credentialId: string | null;
  outcome: AttemptOutcome;
  /** Why, in a word of our own (wrong_secret, unknown_handle, too_many_attempts, …); never input. */
  reason: string | null;
}

/**
 * Records an `authn.attempt` audit event, stamped with the app's clock (the same one the
 * token's iat and the attempt limiter use). The fields are typed so that no secret, code or
 * handle value has a place to go.
 */
export async function recordAuthnAttempt(store: AuditStore, now: () => number, attempt: AttemptRecordInput): Promise<void> {
  const at = now();
  await recordEvent(store, at, attempt.orgId, 'authn.attempt', {
    method: attempt.method,
    person_id: attempt.personId,
    credential_id: attempt.credentialId,
    outcome: attempt.outcome,
    reason: attempt.reason,
  });
}
