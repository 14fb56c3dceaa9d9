import { randomBytes } from 'node:crypto';
import { COST_CEILINGS } from './cost-ceilings.ts';
import { parsePasswordHash } from './parse-password-hash.ts';
import type { PasswordHash } from './password-hash.ts';
import { encodePhcBase64 } from './phc-base64.ts';
import type { HashWorkPool } from './threads/hash-work-pool.ts';

/** The organisation's password hashing policy: argon2id 1.3 with at least these costs. */
export interface PasswordHashPolicy {
  memoryKiB: number;
  passes: number;
  parallelism: number;
}

/** OWASP Password Storage Cheat Sheet's first argon2id choice: m=19 MiB, t=2, p=1. */
export const OWASP_ARGON2ID_POLICY: PasswordHashPolicy = { memoryKiB: 19 * 1024, passes: 2, parallelism: 1 };
export const POLICY_SALT_BYTES = 16;
export const POLICY_HASH_BYTES = 32;

/**
 * Whether a hash that just verified is weaker than `policy` and should be replaced: any other
 * function or Argon2 1.0, a cost below the policy's on any of m, t, p (compared one by one,
 * not by estimated total work), or a salt or tag shorter than the policy's.
 */
export function isWeakerThanPolicy(storedHash: string | PasswordHash, policy: PasswordHashPolicy = OWASP_ARGON2ID_POLICY): boolean {
  const hash = typeof storedHash === 'string' ? parsePasswordHash(storedHash) : storedHash;
  if (hash.function !== 'argon2id' || hash.version !== 0x13) return true;
  if (hash.memoryKiB < policy.memoryKiB || hash.passes < policy.passes || hash.parallelism < policy.parallelism) return true;
  return hash.salt.length < POLICY_SALT_BYTES || hash.hash.length < POLICY_HASH_BYTES;
}

/** Refuses a policy whose own hashes an import would refuse (cost-ceilings.ts). */
export function checkPolicy(policy: PasswordHashPolicy): void {
  const within =
    policy.memoryKiB >= 8 * policy.parallelism &&
    policy.memoryKiB <= COST_CEILINGS.argon2MemoryKiB &&
    policy.passes >= 1 &&
    policy.passes <= COST_CEILINGS.argon2Passes &&
    policy.memoryKiB * policy.passes <= COST_CEILINGS.argon2MemoryPassesKiB &&
    policy.parallelism >= 1 &&
    policy.parallelism <= COST_CEILINGS.argon2Parallelism;
  if (!within) throw new RangeError('password hash policy must be within the import ceilings (m ≤ 256 MiB, t ≤ 10, m × t ≤ 256 MiB, p ≤ 16, m ≥ 8·p)');
}

/**
 * A new argon2id 1.3 PHC string for `password` under `policy`, with a random 16-byte salt,
 * computed in `pool` like a verification (it costs as much as one).
 */
export async function hashPassword(password: string | Uint8Array, pool: HashWorkPool, policy: PasswordHashPolicy = OWASP_ARGON2ID_POLICY): Promise<string> {
  checkPolicy(policy);
  const salt = randomBytes(POLICY_SALT_BYTES);
  const tag = await pool.run({
    kind: 'argon2',
    type: 'argon2id',
    version: 0x13,
    inputs: {
      message: typeof password === 'string' ? Buffer.from(password, 'utf8') : password,
      nonce: salt,
      parallelism: policy.parallelism,
      tagLength: POLICY_HASH_BYTES,
      memory: policy.memoryKiB,
      passes: policy.passes,
    },
  });
  const costs = `m=${policy.memoryKiB},t=${policy.passes},p=${policy.parallelism}`;
  return `$argon2id$v=19$${costs}$${encodePhcBase64(salt)}$${encodePhcBase64(tag)}`;
}
