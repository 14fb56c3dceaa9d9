import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { base32Problem, decodeBase32, encodeBase32 } from '../../../src/methods/totp/base32.ts';

/** RFC 4648 §10's Base32 test vectors, padding removed as key URIs carry them. */
const RFC4648_VECTORS: [string, string][] = [
  ['', ''],
  ['f', 'MY'],
  ['fo', 'MZXQ'],
  ['foo', 'MZXW6'],
  ['foob', 'MZXW6YQ'],
  ['fooba', 'MZXW6YTB'],
  ['foobar', 'MZXW6YTBOI'],
];

describe('Base32 (RFC 4648 §6, unpadded)', () => {
  it('encodes and decodes the RFC 4648 §10 vectors', () => {
    for (const [text, base32] of RFC4648_VECTORS) {
      assert.equal(encodeBase32(Buffer.from(text)), base32, text);
      assert.equal(base32Problem(base32), undefined, base32);
      assert.equal(Buffer.from(decodeBase32(base32)).toString(), text, base32);
      assert.equal(Buffer.from(decodeBase32(base32.toLowerCase())).toString(), text, base32);
    }
  });

  it('round-trips every byte value', () => {
    const bytes = Uint8Array.from({ length: 256 }, (_, index) => index);
    assert.deepEqual(decodeBase32(encodeBase32(bytes)), bytes);
  });

  it('names padding, foreign characters and impossible lengths', () => {
    assert.match(base32Problem('MZXW6===')!, /without padding/);
    assert.match(base32Problem('MZXW0')!, /A–Z and the digits 2–7/);
    assert.match(base32Problem('MZXW 6')!, /A–Z and the digits 2–7/);
    for (const length of [1, 3, 6, 9]) assert.match(base32Problem('A'.repeat(length))!, /whole bytes/, String(length));
  });
});
