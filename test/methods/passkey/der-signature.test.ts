import assert from 'node:assert/strict';
import { generateKeyPairSync, sign } from 'node:crypto';
import { describe, it } from 'node:test';
import { isStrictDerEcdsaSignature } from '../../../src/methods/passkey/format/der-signature.ts';

const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const signatures = Array.from({ length: 200 }, (_, i) => sign('sha256', Buffer.from(`message ${i}`), privateKey));

/** The signature's r and s, and a SEQUENCE of them written with the given integer encodings. */
function parts(der: Buffer): [Buffer, Buffer] {
  const rLength = der[3]!;
  const r = der.subarray(4, 4 + rLength);
  const s = der.subarray(6 + rLength, 6 + rLength + der[5 + rLength]!);
  return [r, s];
}
const sequence = (...integers: Buffer[]) => {
  const body = Buffer.concat(integers.map((value) => Buffer.concat([Buffer.of(0x02, value.length), value])));
  return Buffer.concat([Buffer.of(0x30, body.length), body]);
};

describe('Strict DER for ECDSA signatures (WebAuthn ES256)', () => {
  it('accepts what node:crypto (OpenSSL) writes', () => {
    for (const signature of signatures) assert.ok(isStrictDerEcdsaSignature(signature), signature.toString('hex'));
  });

  it('regression: refuses other spellings of the same r and s, which the WebAuthn library accepted', () => {
    const [signature] = signatures as [Buffer];
    const [r, s] = parts(signature);
    assert.deepEqual(sequence(r, s), signature, 'the test rebuilds the signature exactly');
    assert.equal(isStrictDerEcdsaSignature(Buffer.concat([signature, Buffer.of(0)])), false, 'a byte after it');
    assert.equal(
      isStrictDerEcdsaSignature(sequence(Buffer.concat([Buffer.of(0), r[0]! & 0x80 ? Buffer.of(0) : Buffer.alloc(0), r]), s)),
      false,
      'a needless leading zero',
    );
    const longForm = Buffer.concat([Buffer.of(0x30, 0x81, signature.length - 2), signature.subarray(2)]);
    assert.equal(isStrictDerEcdsaSignature(longForm), false, 'a long-form length under 128');
  });

  it('refuses negative integers, empty ones, and what is not a SEQUENCE of two', () => {
    const [signature] = signatures as [Buffer];
    const [r, s] = parts(signature);
    const positive = (value: Buffer) => (value[0] === 0 ? value.subarray(1) : value);
    assert.equal(isStrictDerEcdsaSignature(sequence(Buffer.concat([Buffer.of(0x80), positive(r).subarray(1)]), s)), false);
    assert.equal(isStrictDerEcdsaSignature(sequence(Buffer.alloc(0), s)), false);
    assert.equal(isStrictDerEcdsaSignature(sequence(r)), false);
    assert.equal(isStrictDerEcdsaSignature(sequence(r, s, s)), false);
    assert.equal(isStrictDerEcdsaSignature(Buffer.alloc(64, 1)), false, 'raw r || s');
    assert.equal(isStrictDerEcdsaSignature(Buffer.alloc(0)), false);
  });
});
