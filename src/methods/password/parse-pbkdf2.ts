import { invalidField } from '../../errors/api-error.ts';
import { PASSWORD_HASH_FIELD, type Pbkdf2Hash } from './password-hash.ts';
import { decodePhcBase64 } from './phc-base64.ts';
import type { Pbkdf2Digest } from './threads/hash-job.ts';

export const PBKDF2_DIGESTS: readonly Pbkdf2Digest[] = ['sha1', 'sha256', 'sha512'];
/** Salts of RFC 6070's own vectors are 4 and 5 bytes; legacy imports must not be refused for that. */
export const PBKDF2_SALT_BYTES = { min: 1, max: 64 } as const;
/** A derived key shorter than 16 bytes is guessable by chance. The upper bound is a cost ceiling. */
export const PBKDF2_MIN_KEY_BYTES = 16;

const SHAPE = '$pbkdf2-<sha1|sha256|sha512>$i=<iterations>,l=<key length in bytes>$<salt>$<hash>';
const COST_PART = /^i=([1-9][0-9]{0,9}),l=([1-9][0-9]{0,9})$/;
const refuse = (rule: string) => invalidField(PASSWORD_HASH_FIELD, rule);

/**
 * The service's own pbkdf2 format (design §5):
 * `$pbkdf2-sha256$i=600000,l=32$<salt>$<hash>`, salt and hash in PHC base64.
 * `digest` is the version part after `pbkdf2-`, already checked to be `[a-z0-9]`.
 */
export function parsePbkdf2(digest: string, parts: string[]): Pbkdf2Hash {
  // Named only when as short as a digest name: a longer one may be a plain-text password.
  if (!isDigest(digest)) throw refuse(`pbkdf2 digest ${digest.length <= 6 ? `${digest} ` : ''}is not one of ${PBKDF2_DIGESTS.join(', ')}`);
  if (parts.length < 5) throw refuse(`is a truncated pbkdf2 hash: expected ${SHAPE}`);
  if (parts.length > 5) throw refuse(`has more $-separated parts than a pbkdf2 hash: expected ${SHAPE}`);
  const [, , costText, saltText, hashText] = parts as [string, string, string, string, string];

  const cost = COST_PART.exec(costText);
  if (!cost) throw refuse('pbkdf2 parameters must be i=<iterations>,l=<key length in bytes>, positive decimals, in this order');
  const [iterations, keyLength] = cost.slice(1).map(Number) as [number, number];

  const salt = decodePhcBase64(saltText);
  if (!salt) throw refuse('pbkdf2 salt is not PHC base64 (standard alphabet, no padding)');
  if (salt.length < PBKDF2_SALT_BYTES.min || salt.length > PBKDF2_SALT_BYTES.max)
    throw refuse(`pbkdf2 salt must be ${PBKDF2_SALT_BYTES.min}–${PBKDF2_SALT_BYTES.max} bytes, not ${salt.length}`);
  const hash = decodePhcBase64(hashText);
  if (!hash) throw refuse('pbkdf2 hash is not PHC base64 (standard alphabet, no padding)');
  if (keyLength < PBKDF2_MIN_KEY_BYTES) throw refuse(`pbkdf2 key length l must be at least ${PBKDF2_MIN_KEY_BYTES} bytes`);
  if (hash.length !== keyLength) throw refuse(`pbkdf2 hash is ${hash.length} bytes but l=${keyLength}`);

  return { function: 'pbkdf2', version: digest, iterations, keyLength, salt, hash };
}

function isDigest(digest: string): digest is Pbkdf2Digest {
  return (PBKDF2_DIGESTS as readonly string[]).includes(digest);
}
