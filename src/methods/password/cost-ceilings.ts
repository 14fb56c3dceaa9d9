import { invalidField } from '../../errors/api-error.ts';
import { parsePasswordHash } from './parse-password-hash.ts';
import { PASSWORD_HASH_FIELD, type PasswordHash } from './password-hash.ts';

/**
 * The most work one login may cost. Each login verifies the stored hash with the stored
 * parameters, and every password failure is answered at the failure time (src/authn/failure-time.ts,
 * default 1 s): so that verifying any accepted hash fits in it, with room for a second
 * verification on the other core of a small machine, each ceiling costs at most about 0.5 s of
 * one core. Measured on the benchmark machine's class (2 cores, Node 24, OpenSSL's argon2 and
 * pbkdf2, the `bcrypt` package), one core, nothing else running:
 *
 * - bcrypt cost 12: 0.21 s, 13: 0.42 s (14: 0.85 s, refused);
 * - argon2id m=256 MiB t=1: 0.42 s, m=128 MiB t=2: 0.35 s, m=64 MiB t=4: 0.23 s — its time
 *   follows memory × passes, which is what the ceiling bounds; lanes run on one thread here;
 * - pbkdf2 per digest-sized block: sha1 3,000,000 iterations 0.40 s, sha256 3,000,000 0.50 s
 *   (SHA extensions), sha512 1,000,000 0.53 s.
 *
 * Every current recommendation is well inside (OWASP 2024: argon2id m=19 MiB t=2 p=1; bcrypt
 * cost 10; pbkdf2 sha1 1,300,000, sha256 600,000, sha512 210,000; Django's 1,200,000 sha256).
 * Hashes stored by releases with higher ceilings are never verified (over-budget.ts).
 */
export const COST_CEILINGS = {
  /** 256 MiB: argon2's memory is held for the whole verification. */
  argon2MemoryKiB: 256 * 1024,
  argon2Passes: 10,
  /** m × t, in KiB: 256 MiB once, or 64 MiB four times. */
  argon2MemoryPassesKiB: 256 * 1024,
  /** Lanes beyond the cores available only add memory traffic. */
  argon2Parallelism: 16,
  /** 2^13 rounds. */
  bcryptCost: 13,
  /** HMAC iterations in all, per digest: `i` times the number of digest-sized blocks in `l`. */
  pbkdf2Iterations: { sha1: 3_000_000, sha256: 3_000_000, sha512: 1_000_000 },
  pbkdf2KeyBytes: 64,
} as const;

const DIGEST_BYTES = { sha1: 20, sha256: 32, sha512: 64 } as const;

/** The rule `hash` breaks by costing more than COST_CEILINGS allow; undefined when within them. */
export function costCeilingBreach(hash: PasswordHash): string | undefined {
  const c = COST_CEILINGS;
  switch (hash.function) {
    case 'argon2i':
    case 'argon2id':
      if (hash.memoryKiB > c.argon2MemoryKiB) return `${hash.function} m must be at most ${c.argon2MemoryKiB} KiB (256 MiB)`;
      if (hash.passes > c.argon2Passes) return `${hash.function} t must be at most ${c.argon2Passes}`;
      if (hash.parallelism > c.argon2Parallelism) return `${hash.function} p must be at most ${c.argon2Parallelism}`;
      if (hash.memoryKiB * hash.passes > c.argon2MemoryPassesKiB)
        return `${hash.function} m × t must be at most ${c.argon2MemoryPassesKiB} KiB (m=256 MiB with t=1, or m=64 MiB with t=4)`;
      return undefined;
    case 'bcrypt':
      return hash.cost > c.bcryptCost ? `bcrypt cost must be at most ${c.bcryptCost}` : undefined;
    case 'pbkdf2': {
      if (hash.keyLength > c.pbkdf2KeyBytes) return `pbkdf2 key length l must be at most ${c.pbkdf2KeyBytes} bytes`;
      const ceiling = c.pbkdf2Iterations[hash.version];
      if (hash.iterations > ceiling) return `pbkdf2-${hash.version} iterations i must be at most ${ceiling}`;
      // PBKDF2 repeats all iterations for each digest-sized block of the key.
      const blocks = Math.ceil(hash.keyLength / DIGEST_BYTES[hash.version]);
      if (hash.iterations * blocks > ceiling) return `pbkdf2-${hash.version} i × blocks must be at most ${ceiling} (l=${hash.keyLength} is ${blocks} blocks)`;
      return undefined;
    }
  }
}

/** Throws a 400 naming the field and the ceiling when verifying `hash` would cost more than COST_CEILINGS. */
export function checkCostCeilings(hash: PasswordHash): void {
  const breach = costCeilingBreach(hash);
  if (breach) throw invalidField(PASSWORD_HASH_FIELD, `${breach}, so that one login cannot cost more than the service allows`);
}

/** What an import accepts: a hash in an accepted format whose cost is within the ceilings. */
export function parseImportedPasswordHash(text: string): PasswordHash {
  const hash = parsePasswordHash(text);
  checkCostCeilings(hash);
  return hash;
}
