import { randomInt, timingSafeEqual } from 'node:crypto';
import type { CredentialTypeContext, PreparedCredential } from '../../credentials/credential-type.ts';
import { MAX_RECOVERY_CODE_LENGTH, MAX_RECOVERY_CODES, MIN_RECOVERY_CODE_LENGTH } from './limits.ts';
import { readStoredTotp } from './stored.ts';

/**
 * Digits and upper-case letters without 0, 1, I, L, O and U: none can be read as another
 * (0/O, 1/I/L) and U is left out as Crockford's Base32 does. 30 symbols, log2(30) ≈ 4.91 bits each.
 */
export const RECOVERY_CODE_ALPHABET = '23456789ABCDEFGHJKMNPQRSTVWXYZ';
/** Ten symbols, about 49 bits: out of reach of 100 guesses, shown as two groups of five. */
const GROUP_LENGTH = 5;
const GROUPS = 2;

/** Printable ASCII only: every code issued or imported is, so nothing else can be one of them. */
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/**
 * The form in which a code is hashed and compared: spaces and hyphens removed, ASCII letters
 * upper-cased, so `abcde fghjk` matches `ABCDE-FGHJK`. Imported codes are normalised the same way.
 * Undefined for a code with any other character than printable ASCII: Unicode's upper-casing
 * (`ſ` to `S`) and white space (a no-break space), or NFKC (fullwidth digits), would let
 * look-alikes match, so no Unicode rule is applied, and only `[ -]` is ever removed.
 */
export function normaliseRecoveryCode(code: string): string | undefined {
  if (!PRINTABLE_ASCII.test(code)) return undefined;
  return code.replace(/[ -]+/g, '').replace(/[a-z]/g, (letter) => letter.toUpperCase());
}

/** The rule an imported code breaks, or undefined. */
export function recoveryCodeProblem(code: string): string | undefined {
  if (code.length > MAX_RECOVERY_CODE_LENGTH) return `must be at most ${MAX_RECOVERY_CODE_LENGTH} characters`;
  // Only a space separates groups: a hyphen is itself printable, so `[ -]` as the separator made
  // every hyphen ambiguous and the match exponential (seconds per code) on a code that fails.
  if (!/^[\x21-\x7e]+(?: [\x21-\x7e]+)*$/.test(code)) return 'must be printable ASCII, with at most single spaces between groups';
  if ((normaliseRecoveryCode(code) ?? '').length < MIN_RECOVERY_CODE_LENGTH)
    return `must have at least ${MIN_RECOVERY_CODE_LENGTH} characters besides spaces and hyphens`;
  return undefined;
}

/** `count` fresh codes from the CSPRNG (crypto.randomInt, unbiased), formatted `XXXXX-XXXXX`. */
export function recoveryCodes(count: number): string[] {
  if (!Number.isInteger(count) || count < 1 || count > MAX_RECOVERY_CODES) throw new RangeError(`recoveryCodes: count must be 1 to ${MAX_RECOVERY_CODES}`);
  return Array.from({ length: count }, () => {
    const groups = Array.from({ length: GROUPS }, () =>
      Array.from({ length: GROUP_LENGTH }, () => RECOVERY_CODE_ALPHABET[randomInt(RECOVERY_CODE_ALPHABET.length)]).join(''),
    );
    return groups.join('-');
  });
}

export interface RecoveryCodeMatch {
  /** Position in the stored list of unused codes' hashes. */
  index: number;
  /** The stored hash: what withoutRecoveryCode removes, and what a compare-and-set can name. */
  hash: string;
}

/**
 * The unused recovery code `code` is, or undefined. Compares with every stored hash, without
 * stopping at a match, so the time taken does not tell which one or how many there are before it.
 */
export function matchRecoveryCode(code: string, stored: PreparedCredential, context: CredentialTypeContext): RecoveryCodeMatch | undefined {
  const { secret } = readStoredTotp(stored);
  const normalised = code.length > MAX_RECOVERY_CODE_LENGTH ? undefined : normaliseRecoveryCode(code);
  // A code no issued one can be is a wrong code like any other: the caller answers it the same.
  if (normalised === undefined) return undefined;
  const candidate = Buffer.from(context.hashCode(normalised));
  let match: RecoveryCodeMatch | undefined;
  secret.recovery_code_hashes.forEach((hash, index) => {
    const storedHash = Buffer.from(hash);
    const equal = storedHash.length === candidate.length && timingSafeEqual(storedHash, candidate);
    if (equal && match === undefined) match = { index, hash };
  });
  return match;
}
