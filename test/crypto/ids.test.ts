import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { newId, randomSecret } from '../../src/crypto/ids.ts';

describe('Time-ordered ids', () => {
  it('regression: ids made in the same millisecond sorted at random, so "newest first" lists flickered', () => {
    const at = 1_700_000_000_000;
    const ids = Array.from({ length: 1_000 }, () => newId('x', at));
    assert.deepEqual([...ids].sort(), ids, 'creation order is id order');
    assert.equal(new Set(ids).size, ids.length);
  });

  it('orders by time first, and keeps the ULID layout: prefix, 10 time and 16 random base32 characters', () => {
    const earlier = newId('per', 1_000);
    const later = newId('per', 2_000);
    assert.ok(earlier < later);
    assert.match(later, /^per_[0-9a-hjkmnp-tv-z]{26}$/);
  });

  it('does not make the next id guessable: steps within a millisecond differ', () => {
    const at = 1_800_000_000_000;
    const tails = Array.from({ length: 50 }, () => BigInt(`0x${Buffer.from(newId('x', at).slice(12)).toString('hex')}`));
    const steps = new Set(tails.slice(1).map((tail, i) => tail - tails[i]!));
    assert.ok(steps.size > 40, `steps repeat: ${steps.size} distinct of 49`);
  });
});

describe('randomSecret', () => {
  it('hands out 256-bit base64url secrets that never repeat across refills of its pool', () => {
    const secrets = Array.from({ length: 1_000 }, () => randomSecret());
    assert.equal(new Set(secrets).size, secrets.length);
    for (const secret of secrets) assert.equal(Buffer.from(secret, 'base64url').length, 32);
    assert.ok(secrets.every((s) => /^[A-Za-z0-9_-]{43}$/.test(s)));
  });

  it('does not hand out the zeroes it leaves behind', () => {
    const zero = Buffer.alloc(32).toString('base64url');
    assert.ok(Array.from({ length: 300 }, () => randomSecret()).every((s) => s !== zero));
  });
});
