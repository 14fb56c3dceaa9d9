import { randomBytes } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';
import { unsafeCharacterProblem } from '../../validation/unsafe-characters.ts';
import { encodeBase32 } from './base32.ts';
import { DEFAULT_ALGORITHM, DEFAULT_DIGITS, DEFAULT_PERIOD_SECONDS, MAX_PERIOD_SECONDS, type TotpAlgorithm, type TotpDigits } from './limits.ts';

/** RFC 4226 §4 recommends 160 bits, the length of an SHA-1 output. */
const ENROLMENT_SECRET_BYTES = 20;

export interface TotpEnrolment {
  /** The key in unpadded Base32, for people who type it in instead of scanning the URI. */
  secret: string;
  /** An otpauth://totp/ key URI that parseKeyUri accepts; shown once, then only its code proves it. */
  keyUri: string;
}

export interface EnrolmentOptions {
  algorithm?: TotpAlgorithm;
  digits?: TotpDigits;
  period?: number;
}

/**
 * A fresh key for a person to enrol: `issuer` is the organisation's name, `accountName` the
 * handle. Defaults are SHA1, 6 digits and 30 seconds because many authenticator apps silently
 * ignore any other values. The enrolment is confirmed by passing `keyUri` to
 * totpCredentialType.prepare and checking a first code with verifyTotp.
 */
export function newEnrolment(issuer: string, accountName: string, options: EnrolmentOptions = {}): TotpEnrolment {
  checkLabelText('issuer', issuer);
  checkLabelText('accountName', accountName);
  if (accountName.includes(':')) throw new RangeError('newEnrolment: accountName must not contain a colon');
  const period = options.period ?? DEFAULT_PERIOD_SECONDS;
  if (!Number.isInteger(period) || period < 1 || period > MAX_PERIOD_SECONDS) throw new RangeError(`newEnrolment: period must be 1 to ${MAX_PERIOD_SECONDS}`);
  const bytes = randomBytes(ENROLMENT_SECRET_BYTES);
  const totp = new TOTP({
    issuer,
    label: accountName,
    // The label's prefix may not hold a colon; such an issuer goes in the issuer parameter only.
    issuerInLabel: !issuer.includes(':'),
    secret: new Secret({ buffer: Uint8Array.from(bytes).buffer }),
    algorithm: options.algorithm ?? DEFAULT_ALGORITHM,
    digits: options.digits ?? DEFAULT_DIGITS,
    period,
  });
  return { secret: encodeBase32(bytes), keyUri: totp.toString() };
}

function checkLabelText(name: string, value: string): void {
  if (value.trim() === '') throw new RangeError(`newEnrolment: ${name} must not be empty`);
  const problem = unsafeCharacterProblem(value);
  if (problem) throw new RangeError(`newEnrolment: ${name} ${problem}`);
}
