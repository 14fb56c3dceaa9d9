import { randomBytes, createHash } from 'node:crypto';

const CROCKFORD = '0123456789abcdefghjkmnpqrstvwxyz';

/**
 * A time-ordered id (ULID layout: 48-bit millisecond time, 80 random bits, Crockford base32)
 * behind a type prefix. Ordering by id orders by creation, which keyset pagination relies on.
 */
export function newId(prefix: string, now: number = Date.now()): string {
  let out = '';
  let time = now;
  for (let i = 0; i < 10; i++) {
    out = CROCKFORD[time % 32] + out;
    time = Math.floor(time / 32);
  }
  const random = randomBytes(16);
  for (let i = 0; i < 16; i++) out += CROCKFORD[random[i]! % 32];
  return `${prefix}_${out}`;
}

/** A bearer secret: 256 random bits, base64url, behind a prefix that says what it is. */
export function newSecret(prefix: string): string {
  return `${prefix}_${randomBytes(32).toString('base64url')}`;
}

/**
 * Secrets are 256-bit random values, not passwords: a fast hash is enough to make a
 * stolen database useless, and it keeps the per-request key lookup cheap.
 */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('base64url');
}
