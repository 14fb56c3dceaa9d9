/** What a WebAuthn challenge was issued for: a login, or registering a new passkey. */
export const webauthnChallengePurposes = ['login', 'registration'] as const;
export type WebAuthnChallengePurpose = (typeof webauthnChallengePurposes)[number];

/**
 * The subject of a discoverable (usernameless) login's challenge. Such a login names nobody until
 * its assertion arrives, whose userHandle chooses both the person and the counter, so there is no
 * counter to keep when the options are made. A marker rather than a nullable column: subject stays
 * NOT NULL (no migration), and it cannot be taken for a counter's subject (they start `att_`) or
 * for the person id a registration's challenge keeps there (`per_`).
 */
export const DISCOVERABLE_LOGIN_SUBJECT = 'discoverable';

/** One WebAuthn ceremony in progress, between its options and its verify call. */
export interface WebAuthnChallenge {
  /** `wch_` id, returned to the caller as challenge_id. */
  id: string;
  orgId: string;
  purpose: WebAuthnChallengePurpose;
  /** The person the ceremony is for; null for a login with a handle that names nobody, and for a discoverable login. */
  personId: string | null;
  /**
   * The attempt counter of the handle the options were asked for (src/authn/attempt-subject.ts),
   * or DISCOVERABLE_LOGIN_SUBJECT for a login asked for without a handle.
   */
  subject: string;
  /** The challenge the options carried, base64url as clientDataJSON repeats it. */
  challenge: string;
  createdAt: number;
  expiresAt: number;
}

/**
 * Issued WebAuthn challenges, kept in the store so that any replica can finish a ceremony
 * another started. A challenge is used at most once, whatever the number of replicas.
 */
export interface WebAuthnChallengeStore {
  createWebAuthnChallenge(challenge: WebAuthnChallenge): Promise<void>;
  /**
   * Takes the challenge out in one conditional statement (DELETE … RETURNING): of concurrent
   * callers exactly one gets it. Returns undefined when it is not there (never issued, of another
   * organisation or purpose, already spent) or has expired by `now` (an expired one is removed too).
   * With `personId`, only that person's challenge is taken: another person's is left unspent and
   * answered as not there, so a caller entitled to one person cannot burn another's ceremony.
   */
  spendWebAuthnChallenge(orgId: string, id: string, purpose: WebAuthnChallengePurpose, now: number, personId?: string): Promise<WebAuthnChallenge | undefined>;
  /** Removes at most `limit` challenges expired by `now` that nobody came back for; returns how many. */
  purgeExpiredWebAuthnChallenges(now: number, limit: number): Promise<number>;
}
