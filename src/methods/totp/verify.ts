import { timingSafeEqual } from 'node:crypto';
import { HOTP, Secret } from 'otpauth';
import type { CredentialTypeContext, PreparedCredential } from '../../credentials/credential-type.ts';
import { decodeBase32 } from './base32.ts';
import { readStoredTotp } from './stored.ts';

/**
 * Steps tried around the current one, in order of preference: RFC 6238 §5.2 allows one step of
 * transmission delay and clock drift either way. When a code matches two steps (a collision,
 * about one in a million for 6 digits) the earlier in this list is reported.
 */
const STEP_OFFSETS = [0, -1, 1] as const;

/** RFC 6238 §4.2: T = floor((now − T0) / X), with T0 = 0. */
export function timeStep(nowMs: number, periodSeconds: number): number {
  return Math.floor(nowMs / 1000 / periodSeconds);
}

/**
 * The time step whose code `code` is, under the credential's own algorithm, digits and period,
 * within ±1 step of `nowMs`; undefined when it is none of them. Every candidate is computed and
 * compared in constant time, whichever matches. This does not remember anything: the caller
 * must refuse a step at or below the last one it accepted for this credential, so that each
 * code is used once.
 */
export function verifyTotp(code: string, stored: PreparedCredential, context: CredentialTypeContext, nowMs: number): number | undefined {
  const { params, secret } = readStoredTotp(stored);
  if (code.length !== params.digits || !/^[0-9]+$/.test(code)) return undefined;
  const key = new Secret({ buffer: decodeBase32(context.open(secret.sealed_key)).buffer as ArrayBuffer });
  const given = Buffer.from(code);
  const current = timeStep(nowMs, params.period);
  let matched: number | undefined;
  for (const offset of STEP_OFFSETS) {
    const step = current + offset;
    if (step < 0) continue;
    const expected = HOTP.generate({ secret: key, algorithm: params.algorithm, digits: params.digits, counter: step });
    const equal = timingSafeEqual(Buffer.from(expected), given);
    if (equal && matched === undefined) matched = step;
  }
  return matched;
}
