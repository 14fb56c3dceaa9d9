import { createPublicKey, type KeyObject } from 'node:crypto';
import { isoCBOR } from '@simplewebauthn/server/helpers';
import { isEd25519Point } from './ed25519-point.ts';
import { MAX_COSE_KEY_BYTES } from './params.ts';

/**
 * COSE_Key parsing (RFC 9052 §7, RFC 9053 §2 and §7, RFC 8230 §4) for the three key types a
 * passkey may have. Each key becomes a node:crypto KeyObject, so what is stored is known to be a
 * usable public key: an EC point on P-256, an Ed25519 point that decodes, an RSA modulus of at
 * least 2048 bits. The CBOR itself is read by @simplewebauthn's own decoder, the one that reads
 * the key again at every login, so import and login cannot disagree about the bytes.
 */

/** COSE algorithm ids (IANA COSE Algorithms) that registration offers and import accepts. */
export const COSE_ALGORITHM = { ES256: -7, EdDSA: -8, RS256: -257 } as const;
export type CoseAlgorithmName = keyof typeof COSE_ALGORITHM;
export const SUPPORTED_COSE_ALGORITHMS: number[] = [COSE_ALGORITHM.EdDSA, COSE_ALGORITHM.ES256, COSE_ALGORITHM.RS256];

/** NIST SP 800-131A's floor for RSA signatures. */
export const RSA_MIN_MODULUS_BITS = 2048;
/** A ceiling, so that an imported key cannot make each signature check arbitrarily slow. */
export const RSA_MAX_MODULUS_BITS = 8192;

export interface ParsedCoseKey {
  algorithm: CoseAlgorithmName;
  keyObject: KeyObject;
}
export type CoseKeyParseResult = { ok: true; key: ParsedCoseKey } | { ok: false; rule: string };

// COSE key labels: common ones (RFC 9052 §7.1) and per key type (RFC 9053 §7, RFC 8230 §4).
const KTY = 1;
const ALG = 3;
const KTY_OKP = 1;
const KTY_EC2 = 2;
const KTY_RSA = 3;
const CRV_P256 = 1;
const CRV_ED25519 = 6;
const PRIVATE_LABELS: Record<number, number[]> = { [KTY_OKP]: [-4], [KTY_EC2]: [-4], [KTY_RSA]: [-3, -4, -5, -6, -7, -8, -9, -10, -11, -12] };
const ALLOWED_LABELS: Record<number, number[]> = { [KTY_OKP]: [KTY, ALG, -1, -2], [KTY_EC2]: [KTY, ALG, -1, -2, -3], [KTY_RSA]: [KTY, ALG, -1, -2] };

export function parseCoseKey(bytes: Uint8Array): CoseKeyParseResult {
  if (bytes.length > MAX_COSE_KEY_BYTES) return fail(`must be at most ${MAX_COSE_KEY_BYTES} bytes`);
  const map = decodeMap(bytes);
  if (typeof map === 'string') return fail(map);
  const kty = map.get(KTY);
  if (kty !== KTY_EC2 && kty !== KTY_OKP && kty !== KTY_RSA) return fail('kty (label 1) must be 2 (EC2), 1 (OKP) or 3 (RSA)');
  for (const label of map.keys()) {
    if (PRIVATE_LABELS[kty]!.includes(label)) return fail(`must be a public key, but it carries private key parameter ${label}`);
    if (!ALLOWED_LABELS[kty]!.includes(label)) return fail(`label ${label} is not a parameter of a ${ktyName(kty)} public key`);
  }
  try {
    if (kty === KTY_EC2) return parseEc2(map);
    if (kty === KTY_OKP) return parseOkp(map);
    return parseRsa(map);
  } catch {
    // createPublicKey refuses what is not a key of its kind, e.g. a point off the curve.
    return fail(`is not a valid ${ktyName(kty)} public key`);
  }
}

/** A map with integer labels, and exactly the bytes of its shortest encoding: nothing trailing. */
function decodeMap(bytes: Uint8Array): Map<number, unknown> | string {
  let decoded: unknown;
  try {
    decoded = isoCBOR.decodeFirst<unknown>(new Uint8Array(bytes));
  } catch {
    return 'is not well-formed CBOR';
  }
  if (!(decoded instanceof Map)) return 'must be a CBOR map (a COSE_Key)';
  for (const label of decoded.keys()) {
    if (typeof label !== 'number' || !Number.isInteger(label)) return 'must use integer labels only';
  }
  // The decoder reads the first item and ignores the rest; re-encoding shows whether there was more.
  const reencoded = isoCBOR.encode(decoded);
  if (!Buffer.from(reencoded).equals(Buffer.from(bytes))) return 'must be one CBOR map in its shortest encoding, with nothing after it';
  return decoded as Map<number, unknown>;
}

function parseEc2(map: Map<number, unknown>): CoseKeyParseResult {
  if (map.get(ALG) !== COSE_ALGORITHM.ES256) return fail('an EC2 key must have alg (label 3) -7 (ES256)');
  if (map.get(-1) !== CRV_P256) return fail('an EC2 key must have crv (label -1) 1 (P-256)');
  const x = map.get(-2);
  const y = map.get(-3);
  // WebAuthn stores EC2 keys uncompressed; a boolean y (RFC 9053's compressed form) is refused.
  if (!isBytes(x, 32) || !isBytes(y, 32)) return fail('an EC2 P-256 key must have x (label -2) and y (label -3) as 32-byte strings');
  const keyObject = createPublicKey({ key: { kty: 'EC', crv: 'P-256', x: b64url(x), y: b64url(y) }, format: 'jwk' });
  return { ok: true, key: { algorithm: 'ES256', keyObject } };
}

function parseOkp(map: Map<number, unknown>): CoseKeyParseResult {
  if (map.get(ALG) !== COSE_ALGORITHM.EdDSA) return fail('an OKP key must have alg (label 3) -8 (EdDSA)');
  if (map.get(-1) !== CRV_ED25519) return fail('an OKP key must have crv (label -1) 6 (Ed25519)');
  const x = map.get(-2);
  if (!isBytes(x, 32)) return fail('an OKP Ed25519 key must have x (label -2) as a 32-byte string');
  if (!isEd25519Point(x)) return fail('x (label -2) is not an Ed25519 point');
  const keyObject = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: b64url(x) }, format: 'jwk' });
  return { ok: true, key: { algorithm: 'EdDSA', keyObject } };
}

function parseRsa(map: Map<number, unknown>): CoseKeyParseResult {
  if (map.get(ALG) !== COSE_ALGORITHM.RS256) return fail('an RSA key must have alg (label 3) -257 (RS256)');
  const n = map.get(-1);
  const e = map.get(-2);
  if (!isBytes(n) || !isBytes(e)) return fail('an RSA key must have n (label -1) and e (label -2) as byte strings');
  // RFC 8230 §4: the minimum number of octets, so no leading zero byte.
  if (n[0] === 0 || e[0] === 0 || n.length === 0 || e.length === 0) return fail('RSA n and e must be unsigned big-endian without leading zero bytes');
  const bits = n.length * 8 - Math.clz32(n[0]!) + 24;
  if (bits < RSA_MIN_MODULUS_BITS || bits > RSA_MAX_MODULUS_BITS)
    return fail(`the RSA modulus must have ${RSA_MIN_MODULUS_BITS} to ${RSA_MAX_MODULUS_BITS} bits, not ${bits}`);
  if ((n[n.length - 1]! & 1) === 0) return fail('the RSA modulus must be odd');
  // An odd exponent of at least 3 and at most 256 bits (FIPS 186-5 §A.1.1's upper bound).
  if ((e[e.length - 1]! & 1) === 0 || e.length > 32 || (e.length === 1 && e[0]! < 3)) return fail('the RSA exponent must be odd, at least 3 and below 2^256');
  const keyObject = createPublicKey({ key: { kty: 'RSA', n: b64url(n), e: b64url(e) }, format: 'jwk' });
  return { ok: true, key: { algorithm: 'RS256', keyObject } };
}

function isBytes(value: unknown, length?: number): value is Uint8Array {
  return value instanceof Uint8Array && (length === undefined || value.length === length);
}

function b64url(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('base64url');
}

function ktyName(kty: number): string {
  return kty === KTY_EC2 ? 'EC2' : kty === KTY_OKP ? 'OKP' : 'RSA';
}

function fail(rule: string): CoseKeyParseResult {
  return { ok: false, rule };
}
