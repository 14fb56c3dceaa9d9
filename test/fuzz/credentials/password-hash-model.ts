import fc from 'fast-check';
import { encodeBcryptBase64 } from '../../../src/methods/password/bcrypt-base64.ts';

/**
 * Generated password hashes in the three accepted formats, each part either well-formed or
 * broken in a known way, with what docs/credentials.md ("Password hashes") says the import must
 * do with them: accept, refuse the format, or refuse a cost above the ceilings. The rules are
 * written out again here from the documentation, not taken from the parser.
 */

export type Expected = 'accepted' | 'format' | 'ceiling';
export interface GeneratedHash {
  text: string;
  expected: Expected;
}

const MAX_DECIMAL = 9_999_999_999;
const DECIMAL = /^(0|[1-9][0-9]{0,9})$/;
const NOT_DECIMAL = fc.constantFrom('', '01', '+1', '-1', '1.0', ' 1', '1e3', '99999999999', 'x');
const canonicalPhc = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64').replace(/=+$/, '');

/** A count as PHC decimal text: small, up to a little past the ceiling, or huge; sometimes not a decimal at all. */
function decimalText(ceiling: number, typical: number): fc.Arbitrary<string> {
  const number = fc.oneof(
    { weight: 2, arbitrary: fc.integer({ min: 0, max: typical }) },
    { weight: 2, arbitrary: fc.integer({ min: 0, max: ceiling + 2 }) },
    { weight: 1, arbitrary: fc.integer({ min: 0, max: MAX_DECIMAL }) },
  );
  return fc.oneof({ weight: 9, arbitrary: number.map(String) }, { weight: 1, arbitrary: NOT_DECIMAL });
}

/** Salt or hash text: PHC base64 of the bytes, or the same bytes padded or in base64url. */
function phcText(bytes: fc.Arbitrary<Uint8Array>): fc.Arbitrary<{ text: string; bytes: Uint8Array }> {
  const encoding = fc.oneof({ weight: 6, arbitrary: fc.constant<BufferEncoding | 'phc'>('phc') }, fc.constantFrom<BufferEncoding>('base64', 'base64url'));
  return fc.tuple(bytes, encoding).map(([raw, how]) => ({ bytes: raw, text: how === 'phc' ? canonicalPhc(raw) : Buffer.from(raw).toString(how) }));
}

/** Lengths spread over the whole range (fast-check's default size keeps arrays short). */
const bytesOf = (max: number) => fc.uint8Array({ minLength: 0, maxLength: max, size: 'max' });

export const argon2Hashes: fc.Arbitrary<GeneratedHash> = fc
  .record({
    fn: fc.constantFrom('argon2i', 'argon2id'),
    version: fc.oneof({ weight: 4, arbitrary: fc.constantFrom(null, 'v=19', 'v=16') }, fc.constantFrom('v=18', 'v=019', 'v=', 'v=0x13')),
    m: decimalText(262_144, 4096),
    t: decimalText(10, 3),
    p: decimalText(16, 4),
    salt: phcText(bytesOf(72)),
    hash: phcText(bytesOf(72)),
  })
  .map(({ fn, version, m, t, p, salt, hash }) => {
    const text = `$${fn}${version === null ? '' : `$${version}`}$m=${m},t=${t},p=${p}$${salt.text}$${hash.text}`;
    const [memory, passes, lanes] = [m, t, p].map(Number) as [number, number, number];
    const wellFormed =
      (version === null || version === 'v=19' || version === 'v=16') &&
      [m, t, p].every((part) => DECIMAL.test(part)) &&
      passes >= 1 &&
      lanes >= 1 &&
      memory >= 8 * lanes &&
      salt.text === canonicalPhc(salt.bytes) &&
      salt.bytes.length >= 8 &&
      salt.bytes.length <= 64 &&
      hash.text === canonicalPhc(hash.bytes) &&
      hash.bytes.length >= 16 &&
      hash.bytes.length <= 64;
    const withinCeilings = memory <= 262_144 && passes <= 10 && lanes <= 16 && memory * passes <= 262_144;
    return { text, expected: !wellFormed ? 'format' : withinCeilings ? 'accepted' : 'ceiling' };
  });

export const bcryptHashes: fc.Arbitrary<GeneratedHash> = fc
  .record({
    version: fc.oneof({ weight: 4, arbitrary: fc.constantFrom('2', '2a', '2b', '2x', '2y') }, fc.constantFrom('2c', '2z', '2bb')),
    cost: fc.oneof(
      { weight: 9, arbitrary: fc.oneof(fc.integer({ min: 0, max: 99 }), fc.integer({ min: 3, max: 17 })).map((n) => String(n).padStart(2, '0')) },
      { weight: 1, arbitrary: NOT_DECIMAL },
    ),
    salt: fc.uint8Array({ minLength: 16, maxLength: 16 }),
    hash: fc.uint8Array({ minLength: 23, maxLength: 23 }),
    length: fc.constantFrom('exact', 'exact', 'exact', 'short', 'long'),
  })
  .map(({ version, cost, salt, hash, length }) => {
    const body = encodeBcryptBase64(salt) + encodeBcryptBase64(hash);
    const sized = length === 'exact' ? body : length === 'short' ? body.slice(0, -1) : `${body}.`;
    const text = `$${version}$${cost}$${sized}`;
    const wellFormed =
      ['2', '2a', '2b', '2x', '2y'].includes(version) && /^[0-9]{2}$/.test(cost) && Number(cost) >= 4 && Number(cost) <= 31 && length === 'exact';
    return { text, expected: !wellFormed ? 'format' : Number(cost) <= 13 ? 'accepted' : 'ceiling' };
  });

const DIGEST_BYTES: Record<string, number> = { sha1: 20, sha256: 32, sha512: 64 };
/** Iterations times digest-sized blocks of the key, per digest (docs/credentials.md, "Cost ceilings"). */
const PBKDF2_CEILINGS: Record<string, number> = { sha1: 3_000_000, sha256: 3_000_000, sha512: 1_000_000 };

export const pbkdf2Hashes: fc.Arbitrary<GeneratedHash> = fc
  .record({
    digest: fc.oneof({ weight: 4, arbitrary: fc.constantFrom('sha1', 'sha256', 'sha512') }, fc.constantFrom('md5', 'sha384')),
    iterations: fc.oneof(fc.integer({ min: 1, max: 2_000 }), fc.integer({ min: 1, max: 20_000_000 }), fc.integer({ min: 0, max: MAX_DECIMAL })),
    keyLength: fc.oneof(fc.integer({ min: 0, max: 90 }), fc.integer({ min: 16, max: 64 })),
    salt: phcText(bytesOf(70)),
    pool: fc.uint8Array({ minLength: 92, maxLength: 92 }),
    hashLengthOff: fc.oneof({ weight: 4, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.integer({ min: -2, max: 2 }) }),
    hashEncoding: fc.constantFrom('phc', 'phc', 'phc', 'base64'),
  })
  .map(({ digest, iterations, keyLength, salt, pool, hashLengthOff, hashEncoding }) => {
    const hash = pool.subarray(0, Math.max(0, keyLength + hashLengthOff));
    const hashText = hashEncoding === 'phc' ? canonicalPhc(hash) : Buffer.from(hash).toString('base64');
    const text = `$pbkdf2-${digest}$i=${iterations},l=${keyLength}$${salt.text}$${hashText}`;
    const digestBytes = DIGEST_BYTES[digest];
    const wellFormed =
      digestBytes !== undefined &&
      iterations >= 1 &&
      keyLength >= 16 &&
      salt.text === canonicalPhc(salt.bytes) &&
      salt.bytes.length >= 1 &&
      salt.bytes.length <= 64 &&
      hashText === canonicalPhc(hash) &&
      hash.length === keyLength;
    const withinCeilings = keyLength <= 64 && iterations * Math.ceil(keyLength / (digestBytes ?? 1)) <= (PBKDF2_CEILINGS[digest] ?? 0);
    return { text, expected: !wellFormed ? 'format' : withinCeilings ? 'accepted' : 'ceiling' };
  });

/** Valid hashes to mutate: one per format and version family, some above a ceiling. */
export const SEED_HASHES = [
  '$argon2id$v=19$m=65536,t=2,p=1$c29tZXNhbHQ$CTFhFdXPJO1aFaMaO6Mm5c8y7cJHAph8ArZWb2GRPPc',
  '$argon2i$m=65536,t=2,p=1$c29tZXNhbHQ$9sTbSlTio3Biev89thdrlKKiCaYsjjYVJxGAL3swxpQ',
  '$2y$05$/OK.fbVrR/bpIqNJ5ianF.CE5elHaaO4EbggVDjb8P19RukzXSM3e',
  '$2a$31$/OK.fbVrR/bpIqNJ5ianF.CE5elHaaO4EbggVDjb8P19RukzXSM3e',
  '$pbkdf2-sha256$i=80000,l=64$TmFDbA$TdzY9guYviGDDO5e8icB+WQaRBjQTAQUrv8Ih2s0q1ah1CWhIlgzVJrbhBtRybMXaicr3ruh0HhHj2Kzl/M8jQ',
  '$pbkdf2-sha1$i=1,l=20$c2FsdA$DGDID5YfDnHzqbUkr2ASBi/gN6Y',
];
