import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { derivedKey } from '../../src/crypto/derived-key.ts';

const SECRET = 'test-secret-that-is-at-least-32-chars';

describe('Keys derived from TESSERA_SECRET', () => {
  it('are HKDF-SHA-256 of the secret with salt tessera and the purpose as info: what earlier releases stored under still verifies', () => {
    // Pinned: a changed salt, hash or length would change every key, and every hash and sealed value made under it.
    assert.equal(derivedKey(SECRET, 'console-csrf').export().toString('hex'), '59296f8bc89d5883340989aa7b9796c3efb786e3fdfa8f98d1e1986e820a9c9b');
  });

  it('differ by purpose and by secret, and are 32 bytes', () => {
    const key = derivedKey(SECRET, 'credential-code-hash').export();
    assert.equal(key.length, 32);
    assert.notDeepEqual(key, derivedKey(SECRET, 'email-verification-code').export());
    assert.notDeepEqual(key, derivedKey(`${SECRET}!`, 'credential-code-hash').export());
  });
});
