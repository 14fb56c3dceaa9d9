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

/** The outcome of taking an attempt before a code is compared. */
export type AttemptTaken =
  /** Taken: `attempts` counts it. */
  | { taken: true; attempts: number }
  /** Not taken: the verification is not open (spent, closed, expired, unknown) or has no attempts left. */
  | { taken: false };

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
   * Takes one attempt, before the code is compared, if the verification is open, unexpired at
   * `now` and has had fewer than `maxAttempts`: so no more codes are ever compared than the
   * limit, however many arrive at once, on however many replicas. The caller closes it when the
   * last attempt was wrong, and gives an attempt back when no code was judged.
   */
  takeEmailVerificationAttemptIf(orgId: string, id: string, now: number, maxAttempts: number): Promise<AttemptTaken>;
  /** Gives back an attempt that judged nothing (the identity source could not be read). */
  giveBackEmailVerificationAttempt(orgId: string, id: string): Promise<void>;
  /**
   * Marks the verification spent if it is open and unexpired at `now`; returns it as spent, or
   * undefined. Of concurrent callers exactly one gets it.
   */
  spendEmailVerificationIf(orgId: string, id: string, now: number): Promise<EmailVerification | undefined>;
  /** Closes the verification if it is open (expired or not); returns whether it did. */
  closeEmailVerification(orgId: string, id: string, reason: VerificationCloseReason, now: number): Promise<boolean>;
  /** Removes at most `limit` verifications that expired before `before` (kept a while for reading); returns how many. */
  purgeEmailVerifications(before: number, limit: number): Promise<number>;
}
