/**
 * The bounds of a TOTP credential, in one place so that the key URI parser, the create
 * request's schema and the documentation (docs/credentials.md, "## TOTP") agree.
 */

/** spec §2.3: the HMAC functions a key URI may name; SHA1 when it names none. */
export const TOTP_ALGORITHMS = ['SHA1', 'SHA256', 'SHA512'] as const;
export type TotpAlgorithm = (typeof TOTP_ALGORITHMS)[number];

/** spec §2.3 and §8: 6 or 8 digits; 6 when the key URI says nothing. */
export const TOTP_DIGITS = [6, 8] as const;
export type TotpDigits = (typeof TOTP_DIGITS)[number];

export const DEFAULT_ALGORITHM: TotpAlgorithm = 'SHA1';
export const DEFAULT_DIGITS: TotpDigits = 6;
export const DEFAULT_PERIOD_SECONDS = 30;

/**
 * RFC 4226 §4 asks for 128 bits and recommends 160, but 80-bit secrets (16 Base32 characters)
 * are what many deployed issuers hand out; refusing them would make their credentials
 * impossible to import. 80 bits is still far beyond what an online guesser limited to 100
 * attempts can reach. Secrets Tessera makes itself are 160 bits (enrolment.ts).
 */
export const MIN_SECRET_BYTES = 10;
/** One SHA-512 block: HMAC hashes any longer key down first, so more adds nothing but storage. */
export const MAX_SECRET_BYTES = 128;

/**
 * Five minutes: with ±1 step of drift a code then stays usable for up to 15 minutes, already
 * long for a one-time code; authenticators in use offer 30 or 60 seconds.
 */
export const MAX_PERIOD_SECONDS = 300;

/** Generous for a label, a 128-byte secret and ignored extras such as an `image` URL. */
export const MAX_KEY_URI_LENGTH = 2048;

/** Recovery codes of one credential, issued in total and still unused. */
export const MAX_RECOVERY_CODES = 100;
/**
 * Of a code as compared (spaces and hyphens removed): shorter ones are guessable, e.g. 8 digits
 * is about 26.6 bits, as in the backup codes of widely used providers.
 */
export const MIN_RECOVERY_CODE_LENGTH = 8;
/** Of a code as given, separators included. */
export const MAX_RECOVERY_CODE_LENGTH = 64;
