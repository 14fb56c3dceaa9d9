import { BLOCK_WORDS, fillBlock } from './argon2-block.ts';
import { blake2b } from './blake2b.ts';

export interface Argon2Inputs {
  message: Uint8Array;
  nonce: Uint8Array;
  parallelism: number;
  tagLength: number;
  memory: number;
  passes: number;
  secret?: Uint8Array;
  associatedData?: Uint8Array;
}

const TYPE_CODES = { argon2d: 0, argon2i: 1, argon2id: 2 } as const;
export type Argon2Type = keyof typeof TYPE_CODES;
const SYNC_POINTS = 4;

const le32 = (n: number) => {
  const bytes = new Uint8Array(4);
  new DataView(bytes.buffer).setUint32(0, n, true);
  return bytes;
};
const concat = (...parts: Uint8Array[]) => Buffer.concat(parts);
const withLength = (bytes: Uint8Array = new Uint8Array()) => concat(le32(bytes.length), bytes);

/** H', the variable-length hash of RFC 9106 §3.3. */
function hashPrime(input: Uint8Array, length: number): Uint8Array {
  if (length <= 64) return blake2b(concat(le32(length), input), length);
  const out = new Uint8Array(length);
  let v = blake2b(concat(le32(length), input), 64);
  let written = 0;
  while (length - written > 64) {
    out.set(v.subarray(0, 32), written);
    written += 32;
    v = blake2b(v, length - written > 64 ? 64 : length - written);
  }
  out.set(v, written);
  return out;
}

/**
 * A transcription of the argon2 reference implementation (RFC 9106 §3, with 1.0's difference:
 * later passes overwrite blocks instead of XOR-ing into them), for the version OpenSSL lacks:
 * crypto.argon2 computes only 1.3, and PHC strings without `v=` are 1.0. Runs on the calling
 * thread, so only on a hash thread (hash-job.ts).
 */
export function argon2Compute(type: Argon2Type, version: 0x10 | 0x13, inputs: Argon2Inputs): Uint8Array {
  const { parallelism: lanes, passes, tagLength } = inputs;
  const h0 = blake2b(
    concat(
      ...[lanes, tagLength, inputs.memory, passes, version, TYPE_CODES[type]].map(le32),
      withLength(inputs.message),
      withLength(inputs.nonce),
      withLength(inputs.secret),
      withLength(inputs.associatedData),
    ),
    64,
  );
  const segmentLength = Math.floor(inputs.memory / (SYNC_POINTS * lanes));
  const laneLength = segmentLength * SYNC_POINTS;
  const blockCount = laneLength * lanes;
  const memory = new Uint32Array(blockCount * BLOCK_WORDS);
  const block = (index: number) => memory.subarray(index * BLOCK_WORDS, (index + 1) * BLOCK_WORDS);
  const asWords = (bytes: Uint8Array) => new Uint32Array(bytes.buffer, bytes.byteOffset, BLOCK_WORDS);

  for (let lane = 0; lane < lanes; lane++) {
    for (const column of [0, 1]) block(lane * laneLength + column).set(asWords(hashPrime(concat(h0, le32(column), le32(lane)), 1024)));
  }

  const zero = new Uint32Array(BLOCK_WORDS);
  const addressInput = new Uint32Array(BLOCK_WORDS);
  const addresses = new Uint32Array(BLOCK_WORDS);
  for (let pass = 0; pass < passes; pass++) {
    for (let slice = 0; slice < SYNC_POINTS; slice++) {
      for (let lane = 0; lane < lanes; lane++) {
        const independent = type === 'argon2i' || (type === 'argon2id' && pass === 0 && slice < SYNC_POINTS / 2);
        addressInput.fill(0);
        [pass, lane, slice, blockCount, passes, TYPE_CODES[type]].forEach((value, i) => {
          addressInput[2 * i] = value;
        });
        const nextAddresses = () => {
          addressInput[12]!++;
          fillBlock(zero, addressInput, addresses, false);
          fillBlock(zero, addresses, addresses, false);
        };
        const start = pass === 0 && slice === 0 ? 2 : 0;
        if (independent && start === 2) nextAddresses();
        for (let index = start; index < segmentLength; index++) {
          const column = slice * segmentLength + index;
          const current = lane * laneLength + column;
          const previous = column === 0 ? current + laneLength - 1 : current - 1;
          if (independent && index % 128 === 0) nextAddresses();
          const j1 = independent ? addresses[2 * (index % 128)]! : memory[previous * BLOCK_WORDS]!;
          const j2 = independent ? addresses[2 * (index % 128) + 1]! : memory[previous * BLOCK_WORDS + 1]!;
          const refLane = pass === 0 && slice === 0 ? lane : j2 % lanes;
          const sameLane = refLane === lane;
          const areaSize =
            pass === 0
              ? slice === 0
                ? index - 1
                : slice * segmentLength + (sameLane ? index - 1 : index === 0 ? -1 : 0)
              : laneLength - segmentLength + (sameLane ? index - 1 : index === 0 ? -1 : 0);
          // relative = areaSize − 1 − ⌊areaSize · ⌊j1² / 2^32⌋ / 2^32⌋, exactly (BigInt: 64-bit products).
          const x = (BigInt(j1) * BigInt(j1)) >> 32n;
          const relative = areaSize - 1 - Number((BigInt(areaSize) * x) >> 32n);
          const startPosition = pass === 0 || slice === SYNC_POINTS - 1 ? 0 : (slice + 1) * segmentLength;
          const refIndex = refLane * laneLength + ((startPosition + relative) % laneLength);
          fillBlock(block(previous), block(refIndex), block(current), version === 0x13 && pass > 0);
        }
      }
    }
  }

  const final = Uint32Array.from(block(laneLength - 1));
  for (let lane = 1; lane < lanes; lane++) {
    const last = block(lane * laneLength + laneLength - 1);
    for (let i = 0; i < BLOCK_WORDS; i++) final[i]! ^= last[i]!;
  }
  return hashPrime(new Uint8Array(final.buffer), tagLength);
}
