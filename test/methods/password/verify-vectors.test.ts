import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseImportedPasswordHash } from '../../../src/methods/password/cost-ceilings.ts';
import { HashWorkPool } from '../../../src/methods/password/threads/hash-work-pool.ts';
import { verifyPassword } from '../../../src/methods/password/verify-password.ts';
import { VECTOR_FILES, vectorsOf } from './fixtures.ts';

const pool = new HashWorkPool();

/** The password with its last byte that bcrypt reads (of the first 72) changed. */
function lastReadByteChanged(password: Buffer): Buffer {
  const changed = Buffer.from(password);
  changed[Math.min(changed.length, 72) - 1]! ^= 0x01;
  return changed;
}

describe('Independent test vectors verify, and wrong passwords do not', () => {
  for (const file of VECTOR_FILES) {
    it(`${file}: every vector is importable, verifies with its password and fails with wrong ones`, async () => {
      const vectors = vectorsOf(file);
      assert.ok(vectors.length >= 2, 'the fixture has vectors');
      for (const vector of vectors) {
        parseImportedPasswordHash(vector.hash);
        assert.equal(await verifyPassword(vector.hash, vector.password, pool), true, `${vector.source} verifies`);
        assert.equal(await verifyPassword(vector.hash, 'not the password', pool), false, `${vector.source} refuses another password`);
        // $2x$ keeps the sign-extension bug: changing a byte that a later 8-bit byte clobbers
        // still verifies there, by design, so that check is for every other function.
        if (vector.password.length > 0 && !vector.hash.startsWith('$2x$')) {
          assert.equal(await verifyPassword(vector.hash, lastReadByteChanged(vector.password), pool), false, `${vector.source} refuses a one-byte change`);
        }
      }
    });
  }

  it('takes a password given as a string as its UTF-8 bytes', async () => {
    const [vector] = vectorsOf('htpasswd-bcrypt.json').filter((v) => v.password.toString() === 'pässwörd');
    assert.ok(vector);
    assert.equal(await verifyPassword(vector.hash, 'pässwörd', pool), true);
    assert.equal(await verifyPassword(vector.hash, 'pässwörd'.normalize('NFD'), pool), false, 'not normalised: the bytes decide');
  });
});
