import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { newId } from '../../src/crypto/ids.ts';

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
