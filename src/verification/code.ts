import { createHmac, randomInt, timingSafeEqual } from 'node:crypto';
import { derivedKey } from '../crypto/derived-key.ts';

/** Spec §8: a code is exactly 6 digits. */
export const CODE_PATTERN = /^\d{6}$/;
const CODE_SPACE = 1_000_000;

/** HKDF purposes: each use of TESSERA_SECRET gets its own key (credentials' codes use another). */
const CODE_HASH_PURPOSE = 'email-verification-code';

/** A fresh code: uniform over 000000–999999 from the system CSPRNG (randomInt rejects modulo bias). */
export function newVerificationCode(): string {
  return String(randomInt(0, CODE_SPACE)).padStart(6, '0');
}

export interface VerificationHasher {
  /** What the store keeps instead of the code. */
  hashCode(verificationId: string, code: string): string;
  /** Whether `code` is the one hashed into `storedHash`, compared in constant time. */
  codeMatches(verificationId: string, code: string, storedHash: string): boolean;
}

/**
 * Keyed hashes under keys derived from TESSERA_SECRET. A code has only a million values, so a
 * plain hash in a stolen database would be reversed at once; under a key the database alone is
 * not enough. The verification id is hashed in too, so equal codes of two verifications do not
 * show as equal hashes, and a hash copied onto another row does not match there.
 */
export function verificationHasher(secret: string): VerificationHasher {
  const codeKey = derivedKey(secret, CODE_HASH_PURPOSE);
  // The id's length goes first, so no (id, code) pair can be spelt as another. (A string is hashed as UTF-8.)
  const digest = (verificationId: string, code: string) => createHmac('sha256', codeKey).update(`${verificationId.length}:${verificationId}:${code}`).digest();
  return {
    hashCode: (verificationId, code) => digest(verificationId, code).toString('base64url'),
    codeMatches(verificationId, code, storedHash) {
      const stored = Buffer.from(storedHash, 'base64url');
      const candidate = digest(verificationId, code);
      // Both are 32 bytes unless the stored value is corrupt; the length is not the secret.
      return stored.length === candidate.length && timingSafeEqual(stored, candidate);
    },
  };
}
