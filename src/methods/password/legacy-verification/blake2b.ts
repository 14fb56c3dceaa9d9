/**
 * BLAKE2b (RFC 7693) with an output length of 1–64 bytes, for the Argon2 1.0 transcription
 * (argon2-reference.ts): Node's crypto offers only blake2b512. 64-bit words are kept as pairs of
 * 32-bit halves, low half first, because JavaScript numbers hold 53 bits and BigInt is slow.
 */
const IV = [
  0xf3bcc908, 0x6a09e667, 0x84caa73b, 0xbb67ae85, 0xfe94f82b, 0x3c6ef372, 0x5f1d36f1, 0xa54ff53a, 0xade682d1, 0x510e527f, 0x2b3e6c1f, 0x9b05688c, 0xfb41bd6b,
  0x1f83d9ab, 0x137e2179, 0x5be0cd19,
];
const SIGMA = [
  [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15],
  [14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3],
  [11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4],
  [7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8],
  [9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13],
  [2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9],
  [12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11],
  [13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10],
  [6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5],
  [10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0],
];

/** v[a] += v[b] + m (64-bit, in halves). */
function add3(v: Uint32Array, a: number, b: number, m: Uint32Array, mi: number): void {
  let lo = v[2 * a]! + v[2 * b]!;
  let hi = v[2 * a + 1]! + v[2 * b + 1]! + (lo >= 0x100000000 ? 1 : 0);
  lo >>>= 0;
  const lo2 = lo + m[2 * mi]!;
  hi = hi + m[2 * mi + 1]! + (lo2 >= 0x100000000 ? 1 : 0);
  v[2 * a] = lo2;
  v[2 * a + 1] = hi;
}

/** v[d] = rotr64(v[d] ^ v[a], n) for n in 16, 24, 32, 63; Argon2's round (argon2-block.ts) uses it too. */
export function xorRotate(v: Uint32Array, d: number, a: number, n: number): void {
  const lo = v[2 * d]! ^ v[2 * a]!;
  const hi = v[2 * d + 1]! ^ v[2 * a + 1]!;
  if (n === 32) {
    v[2 * d] = hi;
    v[2 * d + 1] = lo;
  } else if (n < 32) {
    v[2 * d] = (lo >>> n) | (hi << (32 - n));
    v[2 * d + 1] = (hi >>> n) | (lo << (32 - n));
  } else {
    const k = n - 32;
    v[2 * d] = (hi >>> k) | (lo << (32 - k));
    v[2 * d + 1] = (lo >>> k) | (hi << (32 - k));
  }
}

const ZERO = new Uint32Array(32);

function mix(v: Uint32Array, a: number, b: number, c: number, d: number, m: Uint32Array, x: number, y: number): void {
  add3(v, a, b, m, x);
  xorRotate(v, d, a, 32);
  add3(v, c, d, ZERO, 0);
  xorRotate(v, b, c, 24);
  add3(v, a, b, m, y);
  xorRotate(v, d, a, 16);
  add3(v, c, d, ZERO, 0);
  xorRotate(v, b, c, 63);
}

function compress(h: Uint32Array, block: Uint8Array, counter: number, last: boolean): void {
  const m = new Uint32Array(block.buffer.slice(block.byteOffset, block.byteOffset + 128));
  const v = new Uint32Array(32);
  v.set(h);
  v.set(IV, 16);
  v[24]! ^= counter >>> 0;
  v[25]! ^= Math.floor(counter / 0x100000000);
  if (last) {
    v[28] = ~v[28]!;
    v[29] = ~v[29]!;
  }
  for (const s of SIGMA.concat(SIGMA.slice(0, 2))) {
    mix(v, 0, 4, 8, 12, m, s[0]!, s[1]!);
    mix(v, 1, 5, 9, 13, m, s[2]!, s[3]!);
    mix(v, 2, 6, 10, 14, m, s[4]!, s[5]!);
    mix(v, 3, 7, 11, 15, m, s[6]!, s[7]!);
    mix(v, 0, 5, 10, 15, m, s[8]!, s[9]!);
    mix(v, 1, 6, 11, 12, m, s[10]!, s[11]!);
    mix(v, 2, 7, 8, 13, m, s[12]!, s[13]!);
    mix(v, 3, 4, 9, 14, m, s[14]!, s[15]!);
  }
  for (let i = 0; i < 16; i++) h[i]! ^= v[i]! ^ v[i + 16]!;
}

/** BLAKE2b of `input`, unkeyed, `outputLength` bytes (1–64). Assumes a little-endian host. */
export function blake2b(input: Uint8Array, outputLength: number): Uint8Array {
  const h = Uint32Array.from(IV);
  h[0]! ^= 0x01010000 ^ outputLength;
  const blocks = Math.max(1, Math.ceil(input.length / 128));
  for (let i = 0; i < blocks; i++) {
    const block = new Uint8Array(128);
    block.set(input.subarray(i * 128, i * 128 + 128));
    compress(h, block, Math.min(input.length, (i + 1) * 128), i === blocks - 1);
  }
  return new Uint8Array(h.buffer).slice(0, outputLength);
}
