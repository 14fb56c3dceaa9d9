export type AttemptOutcome = 'success' | 'failure' | 'refused';

/**
 * One authentication attempt as it is kept, in the audit log (audit.ts) or as a metric
 * (attempt-metrics.ts): who and how, never what was typed.
 */
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
