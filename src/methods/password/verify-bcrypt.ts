import { timingSafeEqual } from 'node:crypto';
import { encodeBcryptBase64 } from './bcrypt-base64.ts';
import type { KeySetupMode } from './legacy-verification/crypt-blowfish.ts';
import type { BcryptHash } from './password-hash.ts';
import type { HashWorkPool } from './threads/hash-work-pool.ts';

/**
 * Verifies a bcrypt hash as the implementation that made it would, for each version:
 *
 * - The password is its bytes up to the first NUL, as every C crypt() sees it.
 * - `$2b$`, `$2y$`: the correct algorithm, the first 72 bytes (crypt_blowfish and OpenBSD agree).
 *   Native (the `bcrypt` package) as `$2b$`.
 * - `$2a$` and `$2x$` with an ASCII-only password: the same as `$2b$`, so native too. (The
 *   package's own `$2a$` is OpenBSD's before 2014, which wraps the length of passwords of 255
 *   bytes or more; crypt_blowfish's `$2a$`, what imports come from, does not.)
 * - `$2a$` and `$2x$` with a byte ≥ 0x80: crypt_blowfish's key setup, with the 2011 safety
 *   measure (`$2a$`) or the sign-extension bug (`$2x$`), in JavaScript.
 *
 * Every variant runs on a hash thread of `pool`.
 * - `$2$`: OpenBSD's original, the password without its NUL (and its length taken modulo 256);
 *   crypt_blowfish never had it, so the package (OpenBSD's code) is the reference. Native.
 */
export async function verifyBcrypt(hash: BcryptHash, password: Uint8Array, pool: HashWorkPool): Promise<boolean> {
  const key = Buffer.from(untilNul(password));
  const jsMode = javascriptMode(hash, key);
  if (jsMode) {
    const digest = await pool.run({ kind: 'crypt-blowfish', password: key, salt: hash.salt, cost: hash.cost, mode: jsMode });
    return timingSafeEqual(digest, hash.hash);
  }
  const expected = Buffer.from(bcryptString(hash.version === '2' ? '2' : '2b', hash), 'latin1');
  // The string is the settings (version, cost, salt) and then 31 characters of hash.
  const settings = expected.subarray(0, expected.length - 31).toString('latin1');
  const computed = await pool.run({ kind: 'bcrypt', password: key, settings });
  return computed.length === expected.length && timingSafeEqual(computed, expected);
}

function javascriptMode(hash: BcryptHash, key: Uint8Array): KeySetupMode | null {
  if (hash.version !== '2a' && hash.version !== '2x') return null;
  if (!key.some((byte) => byte >= 0x80)) return null;
  return hash.version === '2x' ? 'sign-extension-bug' : 'bug-safety';
}

function untilNul(password: Uint8Array): Uint8Array {
  const nul = password.indexOf(0);
  return nul < 0 ? password : password.subarray(0, nul);
}

/** The hash in the plain bcrypt format, under the version given. */
export function bcryptString(version: string, hash: BcryptHash): string {
  return `$${version}$${String(hash.cost).padStart(2, '0')}$${encodeBcryptBase64(hash.salt)}${encodeBcryptBase64(hash.hash)}`;
}
