import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import fc from 'fast-check';
import { coseKey, encodeCbor } from '../../../src/dev/cose-encoding.ts';
import type { SoftwareAlgorithm } from '../../../src/dev/software-authenticator.ts';

/**
 * COSE keys for the fuzz tests: real keys of the three accepted kinds, maps shaped like COSE keys
 * with values sometimes wrong, and real keys changed in ways docs/credentials.md ("Accepted keys")
 * refuses.
 */

/** Real keys of the three accepted kinds, made once (RSA key generation is slow). */
const KEYS: { algorithm: SoftwareAlgorithm; publicKey: KeyObject }[] = [
  ...Array.from({ length: 6 }, () => ({ algorithm: 'ES256' as const, publicKey: generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey })),
  ...Array.from({ length: 6 }, () => ({ algorithm: 'EdDSA' as const, publicKey: generateKeyPairSync('ed25519').publicKey })),
  { algorithm: 'RS256', publicKey: generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey },
  { algorithm: 'RS256', publicKey: generateKeyPairSync('rsa', { modulusLength: 2048, publicExponent: 3 }).publicKey },
];
export const realKey = fc.constantFrom(...KEYS);
export const realCose = realKey.map(({ algorithm, publicKey }) => coseKey(algorithm, publicKey));

/** The COSE labels of a key, as a map that can be changed before it is encoded. */
function labels({ algorithm, publicKey }: (typeof KEYS)[number]): Map<number, unknown> {
  const jwk = publicKey.export({ format: 'jwk' });
  const bytes = (field: string | undefined) => Uint8Array.from(Buffer.from(field!, 'base64url'));
  if (algorithm === 'ES256')
    return new Map<number, unknown>([
      [1, 2],
      [3, -7],
      [-1, 1],
      [-2, bytes(jwk.x)],
      [-3, bytes(jwk.y)],
    ]);
  if (algorithm === 'EdDSA')
    return new Map<number, unknown>([
      [1, 1],
      [3, -8],
      [-1, 6],
      [-2, bytes(jwk.x)],
    ]);
  return new Map<number, unknown>([
    [1, 3],
    [3, -257],
    [-1, bytes(jwk.n)],
    [-2, bytes(jwk.e)],
  ]);
}

const leaf = fc.oneof(
  fc.integer({ min: -20, max: 20 }),
  fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
  fc.uint8Array({ maxLength: 40 }),
  fc.uint8Array({ minLength: 32, maxLength: 32 }),
  fc.string({ maxLength: 8 }),
  fc.boolean(),
);
const { value: cborValue } = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    leaf,
    fc.array(tie('value'), { maxLength: 3 }),
    fc.array(fc.tuple(leaf, tie('value')), { maxLength: 3 }).map((entries) => new Map(entries)),
  ),
}));
const label = fc.oneof(fc.integer({ min: -12, max: 4 }), fc.integer({ min: -300, max: 300 }), fc.string({ maxLength: 3 }));
/** Mostly the right value for a label, sometimes any value at all. */
const mostly = <T>(right: fc.Arbitrary<T>) => fc.oneof({ weight: 6, arbitrary: right }, { weight: 1, arbitrary: cborValue });
const bytes32 = fc.uint8Array({ minLength: 32, maxLength: 32 });
/** x and y of a real P-256 point: 32 random bytes each are almost never one, and a map of them never accepted. */
const realPoint = fc.constantFrom(...KEYS.filter((key) => key.algorithm === 'ES256')).map(({ publicKey }) => {
  const jwk = publicKey.export({ format: 'jwk' });
  return [Uint8Array.from(Buffer.from(jwk.x!, 'base64url')), Uint8Array.from(Buffer.from(jwk.y!, 'base64url'))] as [unknown, unknown];
});
const point = fc.oneof(realPoint, fc.tuple(mostly(bytes32), mostly(fc.oneof(bytes32, fc.boolean()))));
const shapes: fc.Arbitrary<[unknown, unknown][]>[] = [
  fc.tuple(mostly(fc.constant(2)), mostly(fc.constant(-7)), mostly(fc.constant(1)), point).map(([kty, alg, crv, [x, y]]) => [
    [1, kty],
    [3, alg],
    [-1, crv],
    [-2, x],
    [-3, y],
  ]),
  fc.tuple(mostly(fc.constant(1)), mostly(fc.constant(-8)), mostly(fc.constant(6)), mostly(bytes32)).map(([kty, alg, crv, x]) => [
    [1, kty],
    [3, alg],
    [-1, crv],
    [-2, x],
  ]),
  fc
    .tuple(
      mostly(fc.constant(3)),
      mostly(fc.constant(-257)),
      mostly(fc.uint8Array({ minLength: 250, maxLength: 260 })),
      mostly(fc.uint8Array({ minLength: 1, maxLength: 4 })),
    )
    .map(([kty, alg, n, e]) => [
      [1, kty],
      [3, alg],
      [-1, n],
      [-2, e],
    ]),
];
/** Maps that look like COSE keys of one of the three kinds, a value or a label sometimes wrong, missing or added. */
export const coseLikeMap = fc
  .record({
    entries: fc.oneof(...shapes),
    others: fc.oneof({ weight: 4, arbitrary: fc.constant([]) }, { weight: 1, arbitrary: fc.array(fc.tuple(label, cborValue), { minLength: 1, maxLength: 2 }) }),
    drop: fc.option(fc.constantFrom(1, 3, -1, -2, -3), { freq: 5 }),
  })
  .map(({ entries, others, drop }) => {
    const map = new Map<unknown, unknown>([...entries, ...others]);
    if (drop !== null) map.delete(drop);
    return map;
  });

const PRIVATE = { ES256: [-4], EdDSA: [-4], RS256: [-3, -4, -5, -6, -7, -8, -9, -10, -11, -12] };
const REQUIRED = { ES256: [1, 3, -1, -2, -3], EdDSA: [1, 3, -1, -2], RS256: [1, 3, -1, -2] };
const OWN_ALG = { ES256: -7, EdDSA: -8, RS256: -257 };
/** x of the wrong size for EC2 and OKP; for RSA (whose -2 is e, any odd value of which is a key) n with a leading zero. */
const misencode = (map: Map<number, unknown>, kind: SoftwareAlgorithm, bytes: Uint8Array) => {
  if (kind === 'RS256') map.set(-1, Uint8Array.from([0, ...(map.get(-1) as Uint8Array)]));
  else map.set(-2, bytes.length === 32 ? bytes.subarray(1) : bytes);
};
/** Changes a real key's labels in a way the documentation refuses, with the rule's words when they are fixed. */
// Simple values only: a nested map with byte-string keys is refused earlier, as CBOR the decoder does not read.
export const refusedChange = fc.tuple(realKey, fc.nat(), fc.uint8Array({ minLength: 1, maxLength: 40 }), leaf).map(([key, pick, bytes, value]) => {
  const map = labels(key);
  const kind = key.algorithm;
  const changes: [string, () => RegExp | undefined][] = [
    ['drop a required label', () => (map.delete(REQUIRED[kind][pick % REQUIRED[kind].length]!), undefined)],
    ['add a private part', () => (map.set(PRIVATE[kind][pick % PRIVATE[kind].length]!, bytes), /must be a public key/)],
    ['add another label', () => (map.set(5 + (pick % 200), value), /is not a parameter of/)],
    ['another kty', () => (map.set(1, [1, 2, 3].includes(value as number) ? 4 : value), undefined)],
    ['another alg', () => (map.set(3, value === OWN_ALG[kind] ? -35 : value), undefined)],
    ['a missized point or a padded modulus', () => (misencode(map, kind, bytes), undefined)],
  ];
  const [name, change] = changes[pick % changes.length]!;
  return { name, kind, rule: change(), bytes: encodeCbor(map) };
});
