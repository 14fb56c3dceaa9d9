import { BLOWFISH_INITIAL_P, BLOWFISH_INITIAL_S } from './blowfish-initial-state.ts';

/**
 * How crypt_blowfish (openwall, used by glibc-based systems and PHP) turns a password into
 * bcrypt's key schedule, by hash prefix:
 * - `correct`: `$2b$` and `$2y$`, the algorithm as designed;
 * - `sign-extension-bug`: `$2x$`, bytes ≥ 0x80 sign-extended as crypt_blowfish did before 1.1
 *   (2011), so hashes made then still verify;
 * - `bug-safety`: `$2a$` since 1.1, the correct algorithm except that a password for which the
 *   buggy one would collide (some passwords with \xff) gets one key bit flipped.
 */
export type KeySetupMode = 'correct' | 'sign-extension-bug' | 'bug-safety';

const P_WORDS = 18;
/** "OrpheanBeholderScryDoubt", the text bcrypt encrypts 64 times. */
const MAGIC = [0x4f727068, 0x65616e42, 0x65686f6c, 0x64657253, 0x63727944, 0x6f756274];

/**
 * bcrypt's 23 output bytes for `password` (bytes up to the first NUL, as C's crypt sees them),
 * a 16-byte salt and a cost of 4–31: a transcription of crypt_blowfish 1.3's BF_crypt and
 * BF_set_key. Pure computation on the calling thread; the caller runs it in a worker.
 */
export function cryptBlowfish(password: Uint8Array, salt: Uint8Array, cost: number, mode: KeySetupMode): Uint8Array {
  const { expanded, initial } = setKey(password, mode);
  const P = Uint32Array.from(initial);
  const S = Uint32Array.from(BLOWFISH_INITIAL_S);
  const saltWords = [0, 1, 2, 3].map((i) => readWord(salt, i * 4));
  const block = new Uint32Array(2);

  // Key the state with the salt: P and S replaced by the chained encryption of salt words.
  for (let i = 0; i < P_WORDS; i += 2) {
    block[0]! ^= saltWords[i & 2]!;
    block[1]! ^= saltWords[(i & 2) + 1]!;
    encrypt(P, S, block);
    P[i] = block[0]!;
    P[i + 1] = block[1]!;
  }
  for (let i = 0; i < 1024; i += 4) {
    block[0]! ^= saltWords[2]!;
    block[1]! ^= saltWords[3]!;
    encrypt(P, S, block);
    S[i] = block[0]!;
    S[i + 1] = block[1]!;
    block[0]! ^= saltWords[0]!;
    block[1]! ^= saltWords[1]!;
    encrypt(P, S, block);
    S[i + 2] = block[0]!;
    S[i + 3] = block[1]!;
  }

  // The expensive part: 2^cost rounds of keying with the password, then with the salt.
  for (let round = 2 ** cost; round > 0; round--) {
    for (let i = 0; i < P_WORDS; i++) P[i]! ^= expanded[i]!;
    rekey(P, S, block);
    for (let i = 0; i < P_WORDS; i++) P[i]! ^= saltWords[i % 4]!;
    rekey(P, S, block);
  }

  const output = new Uint8Array(24);
  for (let i = 0; i < 6; i += 2) {
    block[0] = MAGIC[i]!;
    block[1] = MAGIC[i + 1]!;
    for (let n = 0; n < 64; n++) encrypt(P, S, block);
    writeWord(output, i * 4, block[0]!);
    writeWord(output, i * 4 + 4, block[1]!);
  }
  return output.subarray(0, 23);
}

/** BF_set_key: the password cycled (with its NUL) into 18 words, with the mode's deviation. */
function setKey(password: Uint8Array, mode: KeySetupMode): { expanded: Uint32Array; initial: Uint32Array } {
  const nul = password.indexOf(0);
  const key = nul < 0 ? password : password.subarray(0, nul);
  const expanded = new Uint32Array(P_WORDS);
  const initial = new Uint32Array(P_WORDS);
  let position = 0;
  let sign = 0;
  let diff = 0;
  for (let i = 0; i < P_WORDS; i++) {
    let correct = 0;
    let buggy = 0;
    for (let j = 0; j < 4; j++) {
      const byte = position < key.length ? key[position]! : 0;
      correct = ((correct << 8) | byte) >>> 0;
      // (signed char) then widened: bytes ≥ 0x80 set all higher bits, clobbering earlier bytes.
      buggy = ((buggy << 8) | (byte >= 0x80 ? byte - 256 : byte)) >>> 0;
      if (j > 0) sign |= buggy & 0x80;
      position = position < key.length ? position + 1 : 0;
    }
    diff |= (correct ^ buggy) >>> 0;
    expanded[i] = mode === 'sign-extension-bug' ? buggy : correct;
    initial[i] = (BLOWFISH_INITIAL_P[i]! ^ expanded[i]!) >>> 0;
  }
  if (mode === 'bug-safety') {
    // Bit 16 flips when the bug's sign extension mattered yet the buggy and correct keys agree.
    diff = (diff | (diff >>> 16)) & 0xffff;
    const mismatch = (diff + 0xffff) & 0x10000;
    const flip = (sign << 9) & ~mismatch & 0x10000;
    initial[0] = (initial[0]! ^ flip) >>> 0;
  }
  return { expanded, initial };
}

/** Encrypt zeros chained through P, then all of S, replacing each pair (BF_body). */
function rekey(P: Uint32Array, S: Uint32Array, block: Uint32Array): void {
  block[0] = 0;
  block[1] = 0;
  for (let i = 0; i < P_WORDS; i += 2) {
    encrypt(P, S, block);
    P[i] = block[0]!;
    P[i + 1] = block[1]!;
  }
  for (let i = 0; i < 1024; i += 2) {
    encrypt(P, S, block);
    S[i] = block[0]!;
    S[i + 1] = block[1]!;
  }
}

function encrypt(P: Uint32Array, S: Uint32Array, block: Uint32Array): void {
  let left = block[0]!;
  let right = block[1]!;
  left ^= P[0]!;
  for (let i = 1; i <= 16; i += 2) {
    right ^= feistel(S, left) ^ P[i]!;
    left ^= feistel(S, right) ^ P[i + 1]!;
  }
  block[0] = (right ^ P[17]!) >>> 0;
  block[1] = left >>> 0;
}

function feistel(S: Uint32Array, x: number): number {
  const sum = (S[x >>> 24]! + S[256 + ((x >>> 16) & 0xff)]!) | 0;
  return ((sum ^ S[512 + ((x >>> 8) & 0xff)]!) + S[768 + (x & 0xff)]!) | 0;
}

function readWord(bytes: Uint8Array, offset: number): number {
  return ((bytes[offset]! << 24) | (bytes[offset + 1]! << 16) | (bytes[offset + 2]! << 8) | bytes[offset + 3]!) >>> 0;
}

function writeWord(bytes: Uint8Array, offset: number, word: number): void {
  bytes[offset] = word >>> 24;
  bytes[offset + 1] = (word >>> 16) & 0xff;
  bytes[offset + 2] = (word >>> 8) & 0xff;
  bytes[offset + 3] = word & 0xff;
}
