import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { SigningKeyStore } from '../../src/store/signing-keys/store.ts';
import { contractOnEveryBackend, signingKey } from './contract-harness.ts';

contractOnEveryBackend<SigningKeyStore>('Signing key store', (t) => {
  it('keeps one active signing key even when replicas race to create it, and rotates atomically', async () => {
    const { store } = t;
    const candidates = Array.from({ length: 5 }, () => signingKey());
    const winners = await Promise.all(candidates.map((c) => store.ensureActiveSigningKey(c)));
    assert.equal(new Set(winners.map((w) => w.kid)).size, 1, 'every replica sees the same active key');
    const next = signingKey();
    await store.rotateSigningKey(next, 5_000);
    const keys = await store.listSigningKeys();
    assert.deepEqual(
      keys.map((k) => [k.kid, k.status, k.retiredAt]),
      [
        [next.kid, 'active', null],
        [winners[0]!.kid, 'retired', 5_000],
      ],
    );
    assert.deepEqual(keys[0], next);
  });
});
