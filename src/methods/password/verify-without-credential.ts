import { OWASP_ARGON2ID_POLICY, type PasswordHashPolicy } from './rehash-policy.ts';
import type { HashWorkPool } from './threads/hash-work-pool.ts';

const FIXED_SALT = Buffer.from('tessera-no-credential');

/**
 * The work of one verification when there is nothing to verify against (unknown handle, or a
 * person without a password), so the answer takes as long as a wrong password would. Always
 * false; goes through the pool like a real verification.
 */
export async function verifyWithoutCredential(
  password: string | Uint8Array,
  pool: HashWorkPool,
  policy: PasswordHashPolicy = OWASP_ARGON2ID_POLICY,
): Promise<false> {
  await pool.run({
    kind: 'argon2',
    type: 'argon2id',
    version: 0x13,
    inputs: {
      message: typeof password === 'string' ? Buffer.from(password, 'utf8') : password,
      nonce: FIXED_SALT,
      parallelism: policy.parallelism,
      tagLength: 32,
      memory: policy.memoryKiB,
      passes: policy.passes,
    },
  });
  return false;
}
