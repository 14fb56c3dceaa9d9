import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { describe, it } from 'node:test';
import { coseKey, encodeCbor } from '../../../src/dev/cose-encoding.ts';
import { SoftwareAuthenticator } from '../../../src/dev/software-authenticator.ts';
import { parseCoseKey } from '../../../src/methods/passkey/format/cose-key.ts';
import { isEd25519Point } from '../../../src/methods/passkey/format/ed25519-point.ts';

const hex = (text: string) => Uint8Array.from(Buffer.from(text, 'hex'));

// RFC 9052 Appendix C.7.1, the P-256 key "meriadoc.brandybuck@buckland.example".
const RFC9052_X = hex('65eda5a12577c2bae829437fe338701a10aaa375e1bb5b5de108de439c08551d');
const RFC9052_Y = hex('1e52ed75701163f7f9e40ddf9f341b3dc9ba860af7e0ca7ca7e9eecd0084d19c');
// RFC 8032 §7.1, TEST 1's public key.
const RFC8032_PUBLIC = hex('d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a');

function ec2(overrides: [number, unknown][] = [], x: Uint8Array = RFC9052_X, y: unknown = RFC9052_Y): Uint8Array {
  const map = new Map<number, unknown>([
    [1, 2],
    [3, -7],
    [-1, 1],
    [-2, x],
    [-3, y],
  ]);
  for (const [label, value] of overrides) value === undefined ? map.delete(label) : map.set(label, value);
  return encodeCbor(map);
}

function okp(x: Uint8Array, overrides: [number, unknown][] = []): Uint8Array {
  const map = new Map<number, unknown>([
    [1, 1],
    [3, -8],
    [-1, 6],
    [-2, x],
  ]);
  for (const [label, value] of overrides) map.set(label, value);
  return encodeCbor(map);
}

function rsa(n: Uint8Array, e: Uint8Array, alg = -257): Uint8Array {
  return encodeCbor(
    new Map<number, unknown>([
      [1, 3],
      [3, alg],
      [-1, n],
      [-2, e],
    ]),
  );
}

function rsaParts(bits: number): { n: Uint8Array; e: Uint8Array } {
  const jwk = generateKeyPairSync('rsa', { modulusLength: bits }).publicKey.export({ format: 'jwk' });
  return { n: Buffer.from(jwk.n!, 'base64url'), e: Buffer.from(jwk.e!, 'base64url') };
}

function refusal(bytes: Uint8Array): string {
  const result = parseCoseKey(bytes);
  assert.equal(result.ok, false, 'refused');
  return result.ok ? '' : result.rule;
}

describe('COSE key parsing', () => {
  it('accepts RFC 9052 C.7.1 P-256 key as ES256 and yields that very point', () => {
    const result = parseCoseKey(ec2());
    assert.ok(result.ok);
    assert.equal(result.key.algorithm, 'ES256');
    const jwk = result.key.keyObject.export({ format: 'jwk' });
    assert.deepEqual([jwk.crv, Buffer.from(jwk.x!, 'base64url'), Buffer.from(jwk.y!, 'base64url')], ['P-256', Buffer.from(RFC9052_X), Buffer.from(RFC9052_Y)]);
  });

  it("accepts RFC 8032 §7.1 TEST 1's Ed25519 public key as EdDSA", () => {
    const result = parseCoseKey(okp(RFC8032_PUBLIC));
    assert.ok(result.ok);
    assert.equal(result.key.algorithm, 'EdDSA');
    assert.equal(result.key.keyObject.asymmetricKeyType, 'ed25519');
  });

  for (const algorithm of ['ES256', 'EdDSA', 'RS256'] as const) {
    it(`accepts a software authenticator's ${algorithm} key`, () => {
      const result = parseCoseKey(new SoftwareAuthenticator({ algorithm }).cosePublicKey);
      assert.ok(result.ok, result.ok ? '' : result.rule);
      assert.equal(result.key.algorithm, algorithm);
    });
  }

  it('accepts RSA of 2048 and 4096 bits and refuses 1024 bits, naming the bounds', () => {
    for (const bits of [2048, 4096]) {
      const { n, e } = rsaParts(bits);
      const result = parseCoseKey(rsa(n, e));
      assert.ok(result.ok);
      assert.equal(result.key.keyObject.asymmetricKeyDetails?.modulusLength, bits);
    }
    const { n, e } = rsaParts(1024);
    assert.match(refusal(rsa(n, e)), /2048 to 8192 bits, not 1024/);
  });

  it('refuses bytes that are not one CBOR map in shortest form', () => {
    assert.match(refusal(Uint8Array.of(0xff)), /well-formed CBOR/);
    assert.match(refusal(Uint8Array.of(0xa1, 0x01)), /well-formed CBOR/);
    assert.match(refusal(encodeCbor([1, 2])), /CBOR map/);
    assert.match(refusal(Uint8Array.of(...ec2(), 0x00)), /nothing after it/);
    assert.match(refusal(encodeCbor(new Map<unknown, unknown>([['kty', 2]]))), /integer labels/);
    assert.match(refusal(new Uint8Array(2049)), /at most 2048 bytes/);
  });

  it('refuses key types, curves and algorithms other than the three accepted', () => {
    assert.match(refusal(ec2([[1, 4]])), /kty \(label 1\) must be 2 \(EC2\), 1 \(OKP\) or 3 \(RSA\)/);
    assert.match(refusal(ec2([[3, -35]])), /alg \(label 3\) -7 \(ES256\)/);
    assert.match(refusal(ec2([[3, undefined]])), /alg \(label 3\) -7/);
    assert.match(refusal(ec2([[-1, 2]])), /crv \(label -1\) 1 \(P-256\)/);
    assert.match(refusal(okp(RFC8032_PUBLIC, [[-1, 4]])), /crv \(label -1\) 6 \(Ed25519\)/);
    assert.match(refusal(okp(RFC8032_PUBLIC, [[3, -7]])), /alg \(label 3\) -8 \(EdDSA\)/);
    const { n, e } = rsaParts(2048);
    assert.match(refusal(rsa(n, e, -37)), /alg \(label 3\) -257 \(RS256\)/);
  });

  it('refuses EC2 coordinates of the wrong size or compressed, and a point off P-256', () => {
    assert.match(refusal(ec2([], RFC9052_X.subarray(1))), /32-byte strings/);
    assert.match(refusal(ec2([], RFC9052_X, true)), /32-byte strings/);
    const offCurve = Uint8Array.from(RFC9052_Y);
    offCurve[31] = offCurve[31]! ^ 0x01;
    assert.match(refusal(ec2([], RFC9052_X, offCurve)), /is not a valid EC2 public key/);
  });

  it('refuses private keys and parameters a public key of its type does not carry', () => {
    assert.match(refusal(ec2([[-4, new Uint8Array(32)]])), /private key parameter -4/);
    assert.match(refusal(okp(RFC8032_PUBLIC, [[-4, new Uint8Array(32)]])), /private key parameter -4/);
    assert.match(refusal(ec2([[2, Buffer.from('kid')]])), /label 2 is not a parameter of a EC2 public key/);
    const { n, e } = rsaParts(2048);
    const withD = new Map<number, unknown>([
      [1, 3],
      [3, -257],
      [-1, n],
      [-2, e],
      [-3, n],
    ]);
    assert.match(refusal(encodeCbor(withD)), /private key parameter -3/);
  });

  it('refuses Ed25519 x that is not a point, or not 32 bytes', () => {
    const yTwo = new Uint8Array(32);
    yTwo[0] = 2;
    assert.match(refusal(okp(yTwo)), /not an Ed25519 point/);
    assert.match(refusal(okp(RFC8032_PUBLIC.subarray(1))), /32-byte string/);
  });

  it('refuses RSA with leading zero bytes, an even modulus or exponent, or exponent 1', () => {
    const { n, e } = rsaParts(2048);
    assert.match(refusal(rsa(Uint8Array.of(0, ...n), e)), /without leading zero bytes/);
    const even = Uint8Array.from(n);
    even[even.length - 1] = even[even.length - 1]! & 0xfe;
    assert.match(refusal(rsa(even, e)), /modulus must be odd/);
    assert.match(refusal(rsa(n, Uint8Array.of(0x01, 0x00, 0x00))), /exponent must be odd/);
    assert.match(refusal(rsa(n, Uint8Array.of(0x01))), /exponent must be odd, at least 3/);
  });

  it('builds keys the software authenticator also builds from node:crypto (same bytes)', () => {
    const { publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const result = parseCoseKey(coseKey('ES256', publicKey));
    assert.ok(result.ok);
    assert.ok(result.key.keyObject.equals(publicKey));
  });
});

describe('Ed25519 point decoding (RFC 8032 §5.1.3)', () => {
  it('decodes the RFC 8032 §7.1 public keys and freshly made ones', () => {
    assert.ok(isEd25519Point(RFC8032_PUBLIC));
    assert.ok(isEd25519Point(hex('3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c')));
    for (let i = 0; i < 20; i++) {
      const jwk = generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' });
      assert.ok(isEd25519Point(Buffer.from(jwk.x!, 'base64url')));
    }
  });

  it('refuses y ≥ p, y values with no x (2, 7, 8, 11: computed independently), and x = 0 marked odd', () => {
    const p = Uint8Array.from(Buffer.from(`ed${'ff'.repeat(30)}7f`, 'hex'));
    assert.equal(isEd25519Point(p), false);
    for (const y of [2, 7, 8, 11]) {
      const bytes = new Uint8Array(32);
      bytes[0] = y;
      assert.equal(isEd25519Point(bytes), false, `y = ${y}`);
    }
    const one = new Uint8Array(32);
    one[0] = 1;
    assert.ok(isEd25519Point(one), 'y = 1 is the neutral point, x = 0');
    one[31] = 0x80;
    assert.equal(isEd25519Point(one), false);
  });
});
