import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { hashPassword } from '../../../src/methods/password/rehash-policy.ts';
import { HashWorkPool } from '../../../src/methods/password/threads/hash-work-pool.ts';
import { verifyPassword } from '../../../src/methods/password/verify-password.ts';

describe('Hash work never blocks the event loop', () => {
  it('a 5 ms interval keeps ticking while 8 argon2id verifications at OWASP parameters run', async () => {
    const pool = new HashWorkPool({ maxQueued: 8 });
    const stored = await hashPassword('correct horse battery staple', pool);
    let ticks = 0;
    let longestGap = 0;
    let last = performance.now();
    const timer = setInterval(() => {
      const now = performance.now();
      longestGap = Math.max(longestGap, now - last);
      last = now;
      ticks++;
    }, 5);
    const started = performance.now();
    try {
      const results = await Promise.all(Array.from({ length: 8 }, (_, i) => verifyPassword(stored, i % 2 ? 'wrong' : 'correct horse battery staple', pool)));
      assert.deepEqual(results, [true, false, true, false, true, false, true, false]);
    } finally {
      clearInterval(timer);
    }
    const elapsed = performance.now() - started;
    // A blocked loop would tick once at the end; a free one ticks about every 5 ms.
    assert.ok(ticks >= Math.min(10, elapsed / 20), `${ticks} ticks in ${elapsed.toFixed(0)} ms`);
    assert.ok(longestGap < Math.max(100, elapsed / 2), `the longest gap between ticks was ${longestGap.toFixed(0)} ms of ${elapsed.toFixed(0)} ms`);
  });
});
