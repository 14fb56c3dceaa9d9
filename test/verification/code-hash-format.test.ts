import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { verificationHasher } from '../../src/verification/code.ts';

const SECRET = 'a-test-secret-of-at-least-32-characters';

/**
 * The stored code hash is a format: a verification initiated on one replica (or release) is
 * verified on another, so every one must derive the same hash. Known answers, computed apart
 * from the service (Python's hmac): key = HKDF-SHA256(ikm TESSERA_SECRET, salt "tessera", info
 * "email-verification-code", 32 bytes); hash = base64url(HMAC-SHA256(key, "<id length>:<id>:<code>")).
 */
describe('The stored verification code hash', () => {
  const hasher = verificationHasher(SECRET);

  for (const [id, code, expected] of [
    ['evf_1', '123456', 'G-Kc2MnR1fzj8Wy6EJyTPIWNh0qaU0YeO7jaIAGCatw'],
    ['evf_01HZX3', '000042', 'AenXxETmaGHGbet9w_x2aLYHoCf4lbRiR5j3TFkiOgg'],
  ] as const) {
    it(`of ${id} and ${code} is the known answer, and matches it`, () => {
      assert.equal(hasher.hashCode(id, code), expected);
      assert.equal(hasher.codeMatches(id, code, expected), true);
    });
  }
});
