import { timingSafeEqual } from 'node:crypto';
import { createRequire } from 'node:module';
import { encodeBcryptBase64 } from './bcrypt-base64.ts';
import type { KeySetupMode } from './crypt-blowfish.ts';
import type { BcryptHash } from './password-hash.ts';
import { runHashWorker } from './run-hash-worker.ts';

/** The `bcrypt` package ships no types; this is the one call used (async: libuv's thread pool). */
const bcrypt = createRequire(import.meta.url)('bcrypt') as { compare(data: Buffer, hash: string): Promise<boolean> };

/**
 * Verifies a bcrypt hash as the implementation that made it would, for each version:
 *
 * - The password is its bytes up to the first NUL, as every C crypt() sees it.
 * - `$2b$`, `$2y$`: the correct algorithm, the first 72 bytes (crypt_blowfish and OpenBSD agree).
 *   Native (`bcrypt` package, on libuv's thread pool) as `$2b$`.
 * - `$2a$` and `$2x$` with an ASCII-only password: the same as `$2b$`, so native too. (The
 *   package's own `$2a$` is OpenBSD's before 2014, which wraps the length of passwords of 255
 *   bytes or more; crypt_blowfish's `$2a$`, what imports come from, does not.)
 * - `$2a$` and `$2x$` with a byte ≥ 0x80: crypt_blowfish's key setup, with the 2011 safety
 *   measure (`$2a$`) or the sign-extension bug (`$2x$`), in JavaScript in a worker thread.
 * - `$2$`: OpenBSD's original, the password without its NUL (and its length taken modulo 256);
 *   crypt_blowfish never had it, so the package (OpenBSD's code) is the reference. Native.
 */
export async function verifyBcrypt(hash: BcryptHash, password: Uint8Array): Promise<boolean> {
  const key = Buffer.from(untilNul(password));
  const jsMode = javascriptMode(hash, key);
  if (jsMode) {
    const digest = await runHashWorker({ kind: 'crypt-blowfish', password: key, salt: hash.salt, cost: hash.cost, mode: jsMode });
    return timingSafeEqual(Buffer.from(digest), hash.hash);
  }
  const nativeVersion = hash.version === '2' ? '2' : '2b';
  return bcrypt.compare(key, bcryptString(nativeVersion, hash));
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
