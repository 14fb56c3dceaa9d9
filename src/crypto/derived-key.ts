import { createSecretKey, hkdfSync, type KeyObject } from 'node:crypto';

/** Every key derived from TESSERA_SECRET uses this salt: changing it would change every key, and orphan what they sealed. */
const SALT = 'tessera';

/**
 * A 256-bit key for one use of the service secret (HKDF-SHA-256): each purpose gets a key of
 * its own, so a key learnt for one use opens nothing of another. The purpose strings are
 * stored data's names in effect: hashes and sealed values made under one verify only under it.
 * A KeyObject, so that an HMAC made with it per call does not prepare the key again each time.
 */
export function derivedKey(secret: string, purpose: string): KeyObject {
  return createSecretKey(Buffer.from(hkdfSync('sha256', secret, SALT, purpose, 32)));
}
