/**
 * Whether 32 bytes are an Ed25519 public key that RFC 8032 §5.1.3 can decode. Node imports any
 * 32 bytes as an Ed25519 key without decoding the point, so an impossible key would be stored and
 * then fail every login as a bad signature; this check refuses it at import instead.
 */

const P = 2n ** 255n - 19n;
// d = -121665 / 121666 (mod p), the curve constant of edwards25519.
const D = mod(-121665n * modPow(121666n, P - 2n));

export function isEd25519Point(encoded: Uint8Array): boolean {
  if (encoded.length !== 32) return false;
  const bytes = Uint8Array.from(encoded);
  const xIsOdd = (bytes[31]! & 0x80) !== 0;
  bytes[31] = bytes[31]! & 0x7f;
  const y = littleEndian(bytes);
  if (y >= P) return false;
  // x² = (y² − 1) / (d·y² + 1); the point exists when that quotient is a square mod p.
  const ySquared = mod(y * y);
  const u = mod(ySquared - 1n);
  const v = mod(D * ySquared + 1n);
  const xSquared = mod(u * modPow(v, P - 2n));
  // x = 0 has no odd form, so a set sign bit with x = 0 is an invalid encoding.
  if (xSquared === 0n) return !xIsOdd;
  // Euler's criterion: a non-zero residue a is a square iff a^((p−1)/2) = 1.
  return modPow(xSquared, (P - 1n) / 2n) === 1n;
}

function littleEndian(bytes: Uint8Array): bigint {
  let value = 0n;
  for (let i = bytes.length - 1; i >= 0; i--) value = (value << 8n) | BigInt(bytes[i]!);
  return value;
}

function mod(value: bigint): bigint {
  const r = value % P;
  return r < 0n ? r + P : r;
}

function modPow(base: bigint, exponent: bigint): bigint {
  let result = 1n;
  let b = mod(base);
  let e = exponent;
  while (e > 0n) {
    if (e & 1n) result = mod(result * b);
    b = mod(b * b);
    e >>= 1n;
  }
  return result;
}
