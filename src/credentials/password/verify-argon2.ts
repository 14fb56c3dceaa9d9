import { argon2, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';
import { argon2Reference } from './argon2-reference.ts';
import type { Argon2Hash } from './password-hash.ts';

const argon2Async = promisify(argon2);

/**
 * Node's crypto.argon2 (OpenSSL, on libuv's thread pool) for Argon2 1.3. OpenSSL computes only
 * 1.3, so 1.0 hashes (`v=16`, or no `v=`) go to the reference transcription in a worker.
 */
export async function verifyArgon2(hash: Argon2Hash, password: Uint8Array): Promise<boolean> {
  const parameters = {
    message: password,
    nonce: hash.salt,
    parallelism: hash.parallelism,
    tagLength: hash.hash.length,
    memory: hash.memoryKiB,
    passes: hash.passes,
  };
  const tag = hash.version === 0x13 ? await argon2Async(hash.function, parameters) : await argon2Reference(hash.function, 0x10, parameters);
  return timingSafeEqual(tag, hash.hash);
}
