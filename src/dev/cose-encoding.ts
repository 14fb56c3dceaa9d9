import type { KeyObject } from 'node:crypto';

/** The signature algorithms the software authenticator makes keys for. */
export type SoftwareAlgorithm = 'ES256' | 'EdDSA' | 'RS256';

/** The COSE_Key (RFC 9053 §7, RFC 8230 §4) in CTAP2's canonical label order. */
export function coseKey(algorithm: SoftwareAlgorithm, publicKey: KeyObject): Uint8Array {
  const jwk = publicKey.export({ format: 'jwk' });
  const bytes = (field: string | undefined) => Buffer.from(field!, 'base64url');
  if (algorithm === 'ES256') {
    return encodeCbor(
      new Map<number, unknown>([
        [1, 2],
        [3, -7],
        [-1, 1],
        [-2, bytes(jwk.x)],
        [-3, bytes(jwk.y)],
      ]),
    );
  }
  if (algorithm === 'EdDSA')
    return encodeCbor(
      new Map<number, unknown>([
        [1, 1],
        [3, -8],
        [-1, 6],
        [-2, bytes(jwk.x)],
      ]),
    );
  return encodeCbor(
    new Map<number, unknown>([
      [1, 3],
      [3, -257],
      [-1, bytes(jwk.n)],
      [-2, bytes(jwk.e)],
    ]),
  );
}

/** CBOR (RFC 8949) for what COSE keys and attestation objects hold: integers, strings, booleans, arrays, maps. */
export function encodeCbor(value: unknown): Uint8Array {
  const out: number[] = [];
  write(value, out);
  return Uint8Array.from(out);
}

function write(value: unknown, out: number[]): void {
  if (typeof value === 'number' && Number.isInteger(value)) {
    head(value >= 0 ? 0 : 1, value >= 0 ? value : -1 - value, out);
  } else if (typeof value === 'boolean') {
    out.push(value ? 0xf5 : 0xf4);
  } else if (value instanceof Uint8Array || typeof value === 'string') {
    const bytes = typeof value === 'string' ? Buffer.from(value, 'utf8') : value;
    head(typeof value === 'string' ? 3 : 2, bytes.length, out);
    out.push(...bytes);
  } else if (Array.isArray(value)) {
    head(4, value.length, out);
    for (const item of value) write(item, out);
  } else if (value instanceof Map) {
    head(5, value.size, out);
    for (const [key, item] of value) {
      write(key, out);
      write(item, out);
    }
  } else {
    throw new Error(`encodeCbor: cannot encode ${typeof value}`);
  }
}

/** A major type and its argument in the shortest form (RFC 8949 §3, §4.2.1). */
function head(major: number, argument: number, out: number[]): void {
  const type = major << 5;
  if (argument < 24) out.push(type | argument);
  else if (argument < 0x100) out.push(type | 24, argument);
  else if (argument < 0x10000) out.push(type | 25, argument >> 8, argument & 0xff);
  else out.push(type | 26, (argument >>> 24) & 0xff, (argument >> 16) & 0xff, (argument >> 8) & 0xff, argument & 0xff);
}
