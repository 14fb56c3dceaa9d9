import { createHmac } from 'node:crypto';
import { derivedKey } from '../crypto/derived-key.ts';
import { SecretBox } from '../crypto/secret-box.ts';
import type { CredentialTypeContext } from './credential-type.ts';

/** HKDF purposes: each use of TESSERA_SECRET gets its own key (signing keys use another). */
const SEAL_PURPOSE = 'credential-secrets';
const CODE_HASH_PURPOSE = 'credential-code-hash';

/**
 * What credential types get from the service: sealing under a key of their own, and a keyed
 * hash for single-use codes, so that a stolen database alone neither opens a TOTP secret nor
 * lets recovery codes be guessed offline (they are short).
 */
export function credentialTypeContext(secret: string): CredentialTypeContext {
  const box = new SecretBox(secret, SEAL_PURPOSE);
  const hashKey = derivedKey(secret, CODE_HASH_PURPOSE);
  return {
    seal: (plaintext) => box.seal(plaintext),
    open: (sealed) => box.open(sealed),
    hashCode: (code) => createHmac('sha256', hashKey).update(code, 'utf8').digest('base64url'),
  };
}
