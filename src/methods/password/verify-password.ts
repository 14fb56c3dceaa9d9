import { parsePasswordHash } from './parse-password-hash.ts';
import type { PasswordHash } from './password-hash.ts';
import type { HashWorkPool } from './threads/hash-work-pool.ts';
import { verifyArgon2 } from './verify-argon2.ts';
import { verifyBcrypt } from './verify-bcrypt.ts';
import { verifyPbkdf2 } from './verify-pbkdf2.ts';

/**
 * Whether `password` matches `storedHash` (a hash `prepare` accepted, as kept in the
 * credential's secret). The hash work runs on one of `pool`'s hash threads, off the event loop; when the pool's queue is full this rejects with the 503
 * PASSWORD_CHECKS_BUSY ApiError. A string password is its UTF-8 bytes, not normalised: the
 * stored hash was made from whatever bytes the old system received.
 */
export async function verifyPassword(storedHash: string | PasswordHash, password: string | Uint8Array, pool: HashWorkPool): Promise<boolean> {
  const hash = typeof storedHash === 'string' ? parsePasswordHash(storedHash) : storedHash;
  const bytes = typeof password === 'string' ? Buffer.from(password, 'utf8') : password;
  switch (hash.function) {
    case 'argon2i':
    case 'argon2id':
      return verifyArgon2(hash, bytes, pool);
    case 'bcrypt':
      return verifyBcrypt(hash, bytes, pool);
    case 'pbkdf2':
      return verifyPbkdf2(hash, bytes, pool);
  }
}
