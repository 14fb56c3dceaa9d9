import { pbkdf2, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';
import type { Pbkdf2Hash } from './password-hash.ts';

const pbkdf2Async = promisify(pbkdf2);

/** crypto.pbkdf2 runs on libuv's thread pool; the comparison takes the same time for any tag. */
export async function verifyPbkdf2(hash: Pbkdf2Hash, password: Uint8Array): Promise<boolean> {
  const derived = await pbkdf2Async(password, hash.salt, hash.iterations, hash.keyLength, hash.version);
  return timingSafeEqual(derived, hash.hash);
}
