import { invalidField } from '../../errors/api-error.ts';
import { unsafeCharacterProblem } from '../../validation/unsafe-characters.ts';
import { base32Problem, decodeBase32 } from './base32.ts';
import {
  DEFAULT_ALGORITHM,
  DEFAULT_DIGITS,
  DEFAULT_PERIOD_SECONDS,
  MAX_KEY_URI_LENGTH,
  MAX_PERIOD_SECONDS,
  MAX_SECRET_BYTES,
  MIN_SECRET_BYTES,
  TOTP_ALGORITHMS,
  type TotpAlgorithm,
  type TotpDigits,
} from './limits.ts';
import { percentDecode, type QueryParameter, queryParameters, splitUri } from './uri-syntax.ts';

export const KEY_URI_FIELD = 'body.params.key_uri';

/** What a key URI says, every part checked and defaults applied. */
export interface TotpKey {
  /** From the label's prefix or the `issuer` parameter (equal when both are given). */
  issuer: string | undefined;
  accountName: string;
  secret: Uint8Array;
  algorithm: TotpAlgorithm;
  digits: TotpDigits;
  period: number;
}

/** The parameters this parser reads; any other (`image`, `color`, `lock`, …) is ignored. */
const KNOWN_PARAMETERS = new Set(['secret', 'issuer', 'algorithm', 'digits', 'period']);
/** A whole number without sign, leading zero or fraction, at most six digits long. */
const WHOLE_NUMBER = /^[1-9][0-9]{0,5}$/;

/** A 400 on key_uri naming the part and the rule it breaks. */
function refuse(part: string, rule: string): never {
  throw invalidField(KEY_URI_FIELD, `${part} ${rule}`);
}

/**
 * Parses and checks a key URI against spec §2.3's table:
 * `otpauth://totp/[Issuer:]Account?secret=…[&issuer=…][&algorithm=…][&digits=…][&period=…]`.
 * Throws invalidField('body.params.key_uri', rule) naming the first part that is wrong.
 */
export function parseKeyUri(text: string): TotpKey {
  if (text.length > MAX_KEY_URI_LENGTH) refuse('key_uri', `must be at most ${MAX_KEY_URI_LENGTH} characters`);
  const split = splitUri(text);
  if ('problem' in split) refuse('key_uri', split.problem);
  const { scheme, authority, path, query } = split.parts;
  if (scheme !== 'otpauth') refuse('scheme', 'must be otpauth');
  const type = authority.toLowerCase();
  if (type === 'hotp') refuse('type', 'must be totp: counter-based hotp keys are not supported');
  if (type !== 'totp') refuse('type', 'must be totp');
  const label = parseLabel(path);
  const parameters = parametersByName(query);
  const issuer = issuerOf(label.issuerPrefix, parameters.get('issuer'));
  return {
    issuer,
    accountName: label.accountName,
    secret: secretOf(parameters.get('secret')),
    algorithm: algorithmOf(parameters.get('algorithm')),
    digits: digitsOf(parameters.get('digits')),
    period: periodOf(parameters.get('period')),
  };
}

/**
 * The label is `Issuer:Account` or `Account`, the colon literal or `%3A`; neither part may hold a
 * colon of its own (so the split is never ambiguous), and spaces may precede the account name.
 */
function parseLabel(path: string): { issuerPrefix: string | undefined; accountName: string } {
  const label = percentDecode(path);
  if (label === undefined) refuse('label', 'must be percent-encoded UTF-8 (RFC 3986)');
  const pieces = label.split(':');
  if (pieces.length > 2) refuse('label', 'must be "Issuer:Account name" with no other colon');
  const issuerPrefix = pieces.length === 2 ? pieces[0]! : undefined;
  const accountName = pieces[pieces.length - 1]!.replace(/^ +/, '');
  if (issuerPrefix !== undefined) checkText('label issuer', issuerPrefix);
  checkText('label account name', accountName);
  return { issuerPrefix, accountName };
}

function checkText(part: string, value: string): void {
  if (value.trim() === '') refuse(part, 'must not be empty');
  const problem = unsafeCharacterProblem(value);
  if (problem) refuse(part, problem);
}

/** Known parameters by name, each given once; unknown ones are dropped after decoding. */
function parametersByName(query: string | undefined): Map<string, string> {
  const parameters: QueryParameter[] | undefined = query === undefined ? [] : queryParameters(query);
  if (parameters === undefined) refuse('query', 'must be percent-encoded UTF-8 (RFC 3986)');
  const byName = new Map<string, string>();
  for (const { name, value } of parameters) {
    if (!KNOWN_PARAMETERS.has(name)) continue;
    if (byName.has(name)) refuse(name, 'must be given once, not repeated');
    byName.set(name, value);
  }
  return byName;
}

function issuerOf(prefix: string | undefined, parameter: string | undefined): string | undefined {
  if (parameter !== undefined) checkText('issuer', parameter);
  if (prefix !== undefined && parameter !== undefined && prefix !== parameter) {
    refuse('issuer', 'must equal the issuer prefix of the label (after percent-decoding)');
  }
  return parameter ?? prefix;
}

function secretOf(value: string | undefined): Uint8Array {
  if (value === undefined || value === '') refuse('secret', 'is required');
  const problem = base32Problem(value);
  if (problem) refuse('secret', problem);
  const bytes = decodeBase32(value);
  if (bytes.length < MIN_SECRET_BYTES) refuse('secret', `must be at least ${MIN_SECRET_BYTES * 8} bits (${(MIN_SECRET_BYTES * 8) / 5} Base32 characters)`);
  if (bytes.length > MAX_SECRET_BYTES) refuse('secret', `must be at most ${MAX_SECRET_BYTES * 8} bits`);
  return bytes;
}

/** Upper-cased first: `sha256` names the same function, and some issuers write it so. */
function algorithmOf(value: string | undefined): TotpAlgorithm {
  if (value === undefined) return DEFAULT_ALGORITHM;
  const algorithm = TOTP_ALGORITHMS.find((known) => known === value.toUpperCase());
  if (!algorithm) refuse('algorithm', `must be one of ${TOTP_ALGORITHMS.join(', ')}`);
  return algorithm;
}

function digitsOf(value: string | undefined): TotpDigits {
  if (value === undefined) return DEFAULT_DIGITS;
  if (value === '6') return 6;
  if (value === '8') return 8;
  return refuse('digits', 'must be 6 or 8');
}

function periodOf(value: string | undefined): number {
  if (value === undefined) return DEFAULT_PERIOD_SECONDS;
  const seconds = WHOLE_NUMBER.test(value) ? Number(value) : 0;
  if (seconds < 1 || seconds > MAX_PERIOD_SECONDS) refuse('period', `must be a whole number of seconds from 1 to ${MAX_PERIOD_SECONDS}`);
  return seconds;
}
