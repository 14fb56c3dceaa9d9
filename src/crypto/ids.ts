import { createHash, randomFillSync } from 'node:crypto';

const CROCKFORD = '0123456789abcdefghjkmnpqrstvwxyz';

/** The 80 random bits as two halves of 40 (BigInt arithmetic was most of an id's cost). */
const HALF = 2 ** 40;
let lastTime = -1;
let lastHigh = 0;
let lastLow = 0;

/**
 * A time-ordered id (ULID layout: 48-bit millisecond time, 80 random bits, Crockford base32)
 * behind a type prefix. Ordering by id orders by creation, which keyset pagination relies on:
 * within one millisecond the random part steps up from the previous id (ULID's monotonic
 * mode), by a random amount so that the next id is not guessable from this one.
 */
export function newId(prefix: string, now: number = Date.now()): string {
  let high: number;
  let low: number;
  if (now === lastTime) {
    low = lastLow + 1 + poolNumber(4);
    high = lastHigh;
    // Past the top of the 80 bits (never in practice) the order within this millisecond breaks, nothing else.
    if (low >= HALF) [low, high] = [low - HALF, (high + 1) % HALF];
  } else {
    [high, low] = [poolNumber(5), poolNumber(5)];
  }
  lastTime = now;
  lastHigh = high;
  lastLow = low;
  return `${prefix}_${encodeTime(now)}${base32(high, 8)}${base32(low, 8)}`;
}

/** Milliseconds since the epoch as 10 Crockford base32 characters, which sort as the times do. */
export function encodeTime(now: number): string {
  return base32(now, 10);
}

/** A non-negative integer below 2^53 as `length` Crockford base32 characters, zero-padded. */
function base32(value: number, length: number): string {
  let out = '';
  let rest = value;
  for (let i = 0; i < length; i++) {
    out = CROCKFORD[rest % 32] + out;
    rest = Math.floor(rest / 32);
  }
  return out;
}

/** Whether `text` is what encodeTime makes. */
export const ENCODED_TIME = /^[0-9a-hjkmnp-tv-z]{10}$/;

/**
 * Ids are made on every write, and a call into the CSPRNG per id cost more than the rest of
 * newId: random bytes are drawn 4 KiB at a time and handed out once each, as hex. Ids are not
 * secrets, so keeping unused bytes in memory is harmless; secrets below draw their own.
 */
const POOL = Buffer.alloc(4096);
let poolOffset = POOL.length;

/** `count` (at most 6) bytes of the pool as an unsigned number. */
function poolNumber(count: number): number {
  if (poolOffset + count > POOL.length) {
    randomFillSync(POOL);
    poolOffset = 0;
  }
  poolOffset += count;
  return POOL.readUIntBE(poolOffset - count, count);
}

/** A bearer secret: 256 random bits, base64url, behind a prefix that says what it is. */
export function newSecret(prefix: string): string {
  return `${prefix}_${randomSecret()}`;
}

/**
 * 256 random bits, base64url. Secrets are drawn from a pool filled 128 at a time, as Node's
 * randomUUID does, because one CSPRNG call per token cost more than the rest of issuing it;
 * unlike the id pool, the bytes of a secret are zeroed once handed out, so a secret never
 * outlives its issue in this pool.
 */
export function randomSecret(): string {
  if (secretOffset === SECRET_POOL.length) {
    randomFillSync(SECRET_POOL);
    secretOffset = 0;
  }
  const bytes = SECRET_POOL.subarray(secretOffset, secretOffset + SECRET_BYTES);
  secretOffset += SECRET_BYTES;
  const secret = bytes.toString('base64url');
  bytes.fill(0);
  return secret;
}

const SECRET_BYTES = 32;
const SECRET_POOL = Buffer.alloc(SECRET_BYTES * 128);
let secretOffset = SECRET_POOL.length;

/**
 * Secrets are 256-bit random values, not passwords: a fast hash is enough to make a
 * stolen database useless, and it keeps the per-request key lookup cheap.
 */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('base64url');
}
