import { timingSafeEqual } from 'node:crypto';
import type { Argon2Hash } from './password-hash.ts';
import type { HashWorkPool } from './threads/hash-work-pool.ts';

/** Argon2 1.3 by OpenSSL, 1.0 (`v=16`, or no `v=`) by the reference transcription; both on a hash thread. */
export async function verifyArgon2(hash: Argon2Hash, password: Uint8Array, pool: HashWorkPool): Promise<boolean> {
  const tag = await pool.run({
    kind: 'argon2',
    type: hash.function,
    version: hash.version,
    inputs: {
      message: password,
      nonce: hash.salt,
      parallelism: hash.parallelism,
      tagLength: hash.hash.length,
      memory: hash.memoryKiB,
      passes: hash.passes,
    },
  });
  return timingSafeEqual(tag, hash.hash);
}
