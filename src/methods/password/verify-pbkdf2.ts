import { timingSafeEqual } from 'node:crypto';
import type { Pbkdf2Hash } from './password-hash.ts';
import type { HashWorkPool } from './threads/hash-work-pool.ts';

/** crypto.pbkdf2 on a hash thread; the comparison takes the same time for any tag. */
export async function verifyPbkdf2(hash: Pbkdf2Hash, password: Uint8Array, pool: HashWorkPool): Promise<boolean> {
  const derived = await pool.run({
    kind: 'pbkdf2',
    digest: hash.version,
    password,
    salt: hash.salt,
    iterations: hash.iterations,
    keyLength: hash.keyLength,
  });
  return timingSafeEqual(derived, hash.hash);
}
