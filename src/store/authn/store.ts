/**
 * Counted authentication attempts, per subject of an organisation. The subject is a person
 * id, or for a handle that names no person a keyed hash of the handle, so an unknown handle
 * is limited exactly like a known one and the limit reveals nothing (src/authn/).
 */
export interface AttemptRecord {
  /** Attempts counted since the last success (each is counted before the secret is tested). */
  failures: number;
  /** When the latest of them was counted. */
  lastAttemptAt: number;
}

/**
 * The attempt counters, in the store so that every replica sees the same count and a restart
 * forgets nothing. Policy (how many, what delay) lives in src/authn/attempt-policy.ts.
 */
export interface AuthnAttemptStore {
  getAuthnAttempts(orgId: string, subject: string): Promise<AttemptRecord | undefined>;
  /**
   * Counts one attempt at `at` in one conditional statement, only if the stored count is still
   * `expectedFailures` (0 also when there is no row yet). Of concurrent callers that read the
   * same count exactly one gets true, so no more attempts are made than the policy allows.
   */
  countAuthnAttemptIf(orgId: string, subject: string, expectedFailures: number, at: number): Promise<boolean>;
  /** Takes back one counted attempt that never tested a secret (e.g. the hashing queue was full). */
  uncountAuthnAttempt(orgId: string, subject: string): Promise<void>;
  /** After a success: the count starts again from zero. */
  clearAuthnAttempts(orgId: string, subject: string): Promise<void>;
}
