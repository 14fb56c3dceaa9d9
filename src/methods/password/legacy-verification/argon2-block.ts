import { xorRotate } from './blake2b.ts';
/**
 * Argon2's compression function G over 1 KiB blocks (RFC 9106 §3.5), for the 1.0
 * transcription. A block is 128 64-bit words stored as 256 32-bit halves, low half first.
 */
export const BLOCK_WORDS = 256;

/** Word indices of the eight rows and then the eight columns that the permutation P mixes. */
const GROUPS: number[][] = [
  ...Array.from({ length: 8 }, (_, i) => Array.from({ length: 16 }, (_, j) => 16 * i + j)),
  ...Array.from({ length: 8 }, (_, i) => Array.from({ length: 16 }, (_, j) => 2 * i + (j & 1) + 16 * (j >> 1))),
];

/** v[a] = v[a] + v[b] + 2 · lo32(v[a]) · lo32(v[b]), all mod 2^64 (the BlaMka multiply-add). */
function blaMka(v: Uint32Array, a: number, b: number): void {
  const x = v[2 * a]!;
  const y = v[2 * b]!;
  const x0 = x & 0xffff;
  const x1 = x >>> 16;
  const y0 = y & 0xffff;
  const y1 = y >>> 16;
  const p00 = x0 * y0;
  const p01 = x0 * y1;
  const p10 = x1 * y0;
  const cross = (p00 >>> 16) + (p01 & 0xffff) + (p10 & 0xffff);
  const productLo = (((cross & 0xffff) << 16) | (p00 & 0xffff)) >>> 0;
  const productHi = (x1 * y1 + (p01 >>> 16) + (p10 >>> 16) + (cross >>> 16)) >>> 0;
  const doubledLo = (productLo << 1) >>> 0;
  const doubledHi = ((productHi << 1) | (productLo >>> 31)) >>> 0;
  const sum = x + v[2 * b]! + doubledLo;
  v[2 * a] = sum;
  v[2 * a + 1] = v[2 * a + 1]! + v[2 * b + 1]! + doubledHi + Math.floor(sum / 0x100000000);
}

function gb(v: Uint32Array, a: number, b: number, c: number, d: number): void {
  blaMka(v, a, b);
  xorRotate(v, d, a, 32);
  blaMka(v, c, d);
  xorRotate(v, b, c, 24);
  blaMka(v, a, b);
  xorRotate(v, d, a, 16);
  blaMka(v, c, d);
  xorRotate(v, b, c, 63);
}

function permute(v: Uint32Array, w: number[]): void {
  gb(v, w[0]!, w[4]!, w[8]!, w[12]!);
  gb(v, w[1]!, w[5]!, w[9]!, w[13]!);
  gb(v, w[2]!, w[6]!, w[10]!, w[14]!);
  gb(v, w[3]!, w[7]!, w[11]!, w[15]!);
  gb(v, w[0]!, w[5]!, w[10]!, w[15]!);
  gb(v, w[1]!, w[6]!, w[11]!, w[12]!);
  gb(v, w[2]!, w[7]!, w[8]!, w[13]!);
  gb(v, w[3]!, w[4]!, w[9]!, w[14]!);
}

const r = new Uint32Array(BLOCK_WORDS);
const z = new Uint32Array(BLOCK_WORDS);

/**
 * next = G(prev, ref), or next ^= G(prev, ref) when `xorInto` (Argon2 1.3's later passes; 1.0
 * overwrites). Blocks are views into one memory array, so ref may be next itself.
 */
export function fillBlock(prev: Uint32Array, ref: Uint32Array, next: Uint32Array, xorInto: boolean): void {
  for (let i = 0; i < BLOCK_WORDS; i++) r[i] = prev[i]! ^ ref[i]!;
  z.set(r);
  for (const group of GROUPS) permute(z, group);
  for (let i = 0; i < BLOCK_WORDS; i++) next[i] = (xorInto ? next[i]! : 0) ^ r[i]! ^ z[i]!;
}
