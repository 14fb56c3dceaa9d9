/** A verification is open until the right code spends it or something closes it. */
export const verificationStates = ['open', 'spent', 'closed'] as const;
export type VerificationState = (typeof verificationStates)[number];

/**
 * Why a verification was closed: a new initiate for the same identity replaced it, the wrong-code
 * limit was reached, its email could not be sent, or the deny-gate found the identity gone.
 */
export const verificationCloseReasons = ['replaced', 'too_many_attempts', 'email_not_sent', 'identity_removed'] as const;
export type VerificationCloseReason = (typeof verificationCloseReasons)[number];

/** One email verification: a code sent to an identity of an identity connection. */
export interface EmailVerification {
  /** `evf_` id, returned to the caller as verification_id. */
  id: string;
  orgId: string;
  connectionId: string;
  identityId: string;
  /** The address the code went to, as the directory held it at initiate. */
  emailSentTo: string;
  /** Keyed hash of the code (src/verification/code.ts); the code itself is never stored. */
  codeHash: string;
  createdAt: number;
  expiresAt: number;
  /** Wrong codes counted so far. */
  attempts: number;
  state: VerificationState;
  /** Set when state is 'closed'. */
  closedReason: VerificationCloseReason | null;
  /** When it was spent or closed. */
  endedAt: number | null;
}

/** The outcome of counting a wrong code. */
export type WrongAttemptOutcome =
  /** Counted; `closed` when this attempt reached the limit (the verification is now closed). */
  | { counted: true; attempts: number; closed: boolean }
  /** Not counted: the verification is not open (spent, closed, expired or unknown). */
  | { counted: false };

/**
 * Email verifications, shared by every replica. Each transition is one conditional statement,
 * so concurrent callers (on any replica) cannot both win: one spend, and no more wrong codes
 * counted than the limit.
 */
export interface EmailVerificationStore {
  /**
   * Stores a new open verification (attempts 0) and, in the same transaction, closes as
   * 'replaced' any open one of the same organisation, connection and identity: at most one is
   * ever open for an identity. Returns the ids it replaced.
   */
  createEmailVerification(verification: EmailVerification): Promise<{ replaced: string[] }>;
  getEmailVerification(orgId: string, id: string): Promise<EmailVerification | undefined>;
  /**
   * Counts one wrong code if the verification is open, unexpired at `now` and under
   * `maxAttempts`; the attempt that reaches the limit closes it ('too_many_attempts') in the same
   * statement. Of any number of concurrent wrong codes at most `maxAttempts` are ever counted,
   * and every one is either counted or told the verification is no longer open, so racing
   * guesses never go uncounted.
   */
  recordWrongEmailVerificationAttemptIf(orgId: string, id: string, now: number, maxAttempts: number): Promise<WrongAttemptOutcome>;
  /**
   * Marks the verification spent if it is open and unexpired at `now`; returns it as spent, or
   * undefined. Of concurrent callers exactly one gets it.
   */
  spendEmailVerificationIf(orgId: string, id: string, now: number): Promise<EmailVerification | undefined>;
  /** Closes the verification if it is open (expired or not); returns whether it did. */
  closeEmailVerification(orgId: string, id: string, reason: VerificationCloseReason, now: number): Promise<boolean>;
  /** Removes verifications that expired before `before` (kept a while for reading); returns how many. */
  purgeEmailVerifications(before: number): Promise<number>;
}
