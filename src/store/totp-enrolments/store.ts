/**
 * A TOTP enrolment between its start and its confirmation by a first code: the credential it
 * will become, prepared (key sealed, recovery codes hashed), kept in the store so that any
 * replica can confirm it. It expires; confirming spends it.
 */
export interface TotpEnrolment {
  /** `enr_` time-ordered id. */
  id: string;
  orgId: string;
  personId: string;
  label: string | null;
  /** What totpCredentialType.prepare returned: the credential's params and secret. */
  params: Record<string, unknown>;
  secret: Record<string, unknown>;
  createdAt: number;
  expiresAt: number;
}

export interface TotpEnrolmentStore {
  /** Stores a pending enrolment; false, storing nothing, when the person is not of the organisation. */
  createTotpEnrolment(enrolment: TotpEnrolment): Promise<boolean>;
  /** The person's pending enrolment, if it exists and has not expired at `now`. */
  getTotpEnrolment(orgId: string, personId: string, id: string, now: number): Promise<TotpEnrolment | undefined>;
  /**
   * Removes the enrolment in one statement and says whether this call removed it: of
   * concurrent confirmations exactly one gets true, so one enrolment makes one credential.
   */
  spendTotpEnrolment(orgId: string, personId: string, id: string): Promise<boolean>;
  /** Removes at most `limit` enrolments expired at `now` (of any organisation); how many. */
  purgeExpiredTotpEnrolments(now: number, limit: number): Promise<number>;
}
