/**
 * Counted authentication attempts. A counter belongs to one handle and one credential type
 * of an organisation: its subject is a keyed hash of both (src/authn/attempt-subject.ts),
 * whether or not the handle names a person, so the counters reveal neither that a handle
 * exists nor that two handles name the same person.
 */
export interface AttemptRecord {
  /** Attempts counted since the last success (each is counted before the secret is tested). */
  failures: number;
  /** When the latest of them was counted. */
  lastAttemptAt: number;
}

/** Which counter an attempt is counted on. */
export interface AttemptCounter {
  orgId: string;
  subject: string;
  /** The person the handle names at the time of the attempt; null when it names nobody. */
  personId: string | null;
  /** The credential type the attempt tried: password, totp or public-key. */
  credentialType: string;
}

/** A person's counter as an administrator sees it (the handle itself is not stored). */
export interface PersonAttemptRecord extends AttemptRecord {
  credentialType: string;
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
  countAuthnAttemptIf(counter: AttemptCounter, expectedFailures: number, at: number): Promise<boolean>;
  /** Takes back one counted attempt that never tested a secret (e.g. the hashing queue was full). */
  uncountAuthnAttempt(orgId: string, subject: string): Promise<void>;
  /** After a success: the count starts again from zero. */
  clearAuthnAttempts(orgId: string, subject: string): Promise<void>;
  /**
   * A person's counters, by credential type then newest first: those last counted for the
   * person, and those named by `subjects` — the counters of the person's current handles, which
   * may have been counted (even locked) before the handle named them.
   */
  listAuthnAttemptsOfPerson(orgId: string, personId: string, subjects: readonly string[]): Promise<PersonAttemptRecord[]>;
  /** An administrator's reset, or a new credential's (of one type): the same counters, removed; how many. */
  clearAuthnAttemptsOfPerson(orgId: string, personId: string, subjects: readonly string[], credentialType?: string): Promise<number>;
  /**
   * Removes at most `limit` counters that named nobody at their last attempt, counted last before
   * `before`; how many. A counter of a handle that names a person is kept: it is the person's lockout.
   */
  purgeAuthnAttemptsOfNoOne(before: number, limit: number): Promise<number>;
}
