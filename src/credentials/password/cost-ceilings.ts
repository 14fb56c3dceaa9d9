import { invalidField } from '../../errors/api-error.ts';
import { parsePasswordHash } from './parse-password-hash.ts';
import { PASSWORD_HASH_FIELD, type PasswordHash } from './password-hash.ts';

/**
 * The most work one login may cost. Each login verifies the stored hash with the stored
 * parameters, so an imported hash with huge parameters would make every attempt against it a
 * denial of service; imports above these are refused. Each ceiling is well above what any
 * current recommendation asks (OWASP 2024: argon2id m=19 MiB t=2 p=1; bcrypt cost 10;
 * pbkdf2-sha256 600,000 iterations) and still bounded: at most a few seconds of one core, and
 * 256 MiB of memory per concurrent verification (the work pool bounds how many run at once).
 */
export const COST_CEILINGS = {
  /** 256 MiB: argon2's memory is held for the whole verification. */
  argon2MemoryKiB: 256 * 1024,
  argon2Passes: 10,
  /** Lanes beyond the cores available only add memory traffic. */
  argon2Parallelism: 16,
  /** 2^16 rounds: about 4 s of one core natively. */
  bcryptCost: 16,
  /** HMAC iterations in all: `i` times the number of digest-sized blocks in `l`. */
  pbkdf2Iterations: 10_000_000,
  pbkdf2KeyBytes: 64,
} as const;

const DIGEST_BYTES = { sha1: 20, sha256: 32, sha512: 64 } as const;

const above = (rule: string) => invalidField(PASSWORD_HASH_FIELD, `${rule}, so that one login cannot cost more than the service allows`);

/** Throws a 400 saying the ceiling when verifying `hash` would cost more than COST_CEILINGS. */
export function checkCostCeilings(hash: PasswordHash): void {
  const c = COST_CEILINGS;
  switch (hash.function) {
    case 'argon2i':
    case 'argon2id':
      if (hash.memoryKiB > c.argon2MemoryKiB) throw above(`${hash.function} m must be at most ${c.argon2MemoryKiB} KiB (256 MiB)`);
      if (hash.passes > c.argon2Passes) throw above(`${hash.function} t must be at most ${c.argon2Passes}`);
      if (hash.parallelism > c.argon2Parallelism) throw above(`${hash.function} p must be at most ${c.argon2Parallelism}`);
      return;
    case 'bcrypt':
      if (hash.cost > c.bcryptCost) throw above(`bcrypt cost must be at most ${c.bcryptCost}`);
      return;
    case 'pbkdf2': {
      if (hash.keyLength > c.pbkdf2KeyBytes) throw above(`pbkdf2 key length l must be at most ${c.pbkdf2KeyBytes} bytes`);
      if (hash.iterations > c.pbkdf2Iterations) throw above(`pbkdf2 iterations i must be at most ${c.pbkdf2Iterations}`);
      // PBKDF2 repeats all iterations for each digest-sized block of the key.
      const blocks = Math.ceil(hash.keyLength / DIGEST_BYTES[hash.version]);
      if (hash.iterations * blocks > c.pbkdf2Iterations)
        throw above(`pbkdf2 i × blocks must be at most ${c.pbkdf2Iterations} (l=${hash.keyLength} is ${blocks} ${hash.version} blocks)`);
      return;
    }
  }
}

/** What an import accepts: a hash in an accepted format whose cost is within the ceilings. */
export function parseImportedPasswordHash(text: string): PasswordHash {
  const hash = parsePasswordHash(text);
  checkCostCeilings(hash);
  return hash;
}
