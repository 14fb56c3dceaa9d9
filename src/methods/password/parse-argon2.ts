import { invalidField } from '../../errors/api-error.ts';
import { type Argon2Function, type Argon2Hash, type Argon2Version, PASSWORD_HASH_FIELD } from './password-hash.ts';
import { decodePhcBase64 } from './phc-base64.ts';

/** Lengths the argon2 reference accepts for a salt (at least 8 bytes), with an upper bound of ours. */
export const ARGON2_SALT_BYTES = { min: 8, max: 64 } as const;
/** Tags shorter than 16 bytes are guessable by chance; longer than 64 add nothing. */
export const ARGON2_HASH_BYTES = { min: 16, max: 64 } as const;

const PHC_SHAPE = '$<argon2i|argon2id>$v=19$m=<KiB>,t=<passes>,p=<lanes>$<salt>$<hash>';
/** PHC decimals: no sign, no leading zero. */
const DECIMAL = '(0|[1-9][0-9]{0,9})';
const VERSION_PART = new RegExp(`^v=${DECIMAL}$`);
const COST_PART = new RegExp(`^m=${DECIMAL},t=${DECIMAL},p=${DECIMAL}$`);

const refuse = (rule: string) => invalidField(PASSWORD_HASH_FIELD, rule);

/**
 * An argon2i or argon2id PHC string, `$argon2id$v=19$m=19456,t=2,p=1$<salt>$<hash>`, or the
 * legacy form without `v=`, which the argon2 reference reads as version 1.0 (0x10).
 * `parts` is the string split on `$` (parts[0] is the empty text before the first `$`).
 */
export function parseArgon2(fn: Argon2Function, parts: string[]): Argon2Hash {
  const hasVersion = parts[2]?.startsWith('v=') ?? false;
  const expected = hasVersion ? 6 : 5;
  if (parts.length < expected) throw refuse(`is a truncated ${fn} PHC string: expected ${PHC_SHAPE}`);
  if (parts.length > expected) throw refuse(`has more $-separated parts than a ${fn} PHC string: expected ${PHC_SHAPE}`);
  const [costText, saltText, hashText] = parts.slice(expected - 3) as [string, string, string];

  const version = hasVersion ? argon2Version(parts[2]!) : 0x10;
  const cost = COST_PART.exec(costText);
  if (!cost) throw refuse(`${fn} parameters must be m=<KiB>,t=<passes>,p=<lanes> in this order, decimal, nothing else`);
  const [memoryKiB, passes, parallelism] = cost.slice(1).map(Number) as [number, number, number];
  if (passes < 1) throw refuse(`${fn} t (passes) must be at least 1`);
  if (parallelism < 1) throw refuse(`${fn} p (lanes) must be at least 1`);
  if (memoryKiB < 8 * parallelism) throw refuse(`${fn} m must be at least 8 KiB per lane (8 × p)`);

  const salt = decodePhcBase64(saltText);
  if (!salt) throw refuse(`${fn} salt is not PHC base64 (standard alphabet, no padding)`);
  if (salt.length < ARGON2_SALT_BYTES.min || salt.length > ARGON2_SALT_BYTES.max)
    throw refuse(`${fn} salt must be ${ARGON2_SALT_BYTES.min}–${ARGON2_SALT_BYTES.max} bytes, not ${salt.length}`);
  const hash = decodePhcBase64(hashText);
  if (!hash) throw refuse(`${fn} hash is not PHC base64 (standard alphabet, no padding)`);
  if (hash.length < ARGON2_HASH_BYTES.min || hash.length > ARGON2_HASH_BYTES.max)
    throw refuse(`${fn} hash must be ${ARGON2_HASH_BYTES.min}–${ARGON2_HASH_BYTES.max} bytes, not ${hash.length}`);

  return { function: fn, version, memoryKiB, passes, parallelism, salt, hash };
}

function argon2Version(text: string): Argon2Version {
  const match = VERSION_PART.exec(text);
  const version = match ? Number(match[1]) : Number.NaN;
  if (version === 0x13 || version === 0x10) return version;
  throw refuse('argon2 version must be v=19 (1.3) or v=16 (1.0), or absent (1.0)');
}
