import { createCipheriv, createDecipheriv, type KeyObject, randomBytes } from 'node:crypto';
import { derivedKey } from './derived-key.ts';

const VERSION = 'v1';

/**
 * Seals small secrets (private JWKs) at rest with AES-256-GCM under a key derived from the
 * service secret by HKDF, so the database alone never yields a signing key. The purpose
 * string separates keys derived for different uses from the same secret.
 */
export class SecretBox {
  readonly #key: KeyObject;

  constructor(secret: string, purpose: string) {
    if (secret.length < 32) throw new TypeError('SecretBox needs a secret of at least 32 characters');
    this.#key = derivedKey(secret, purpose);
  }

  seal(plaintext: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv);
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return `${VERSION}.${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url')}`;
  }

  /** Throws when the value was sealed under another secret or altered. */
  open(sealed: string): string {
    const [version, payload] = sealed.split('.');
    if (version !== VERSION || !payload) throw new Error('sealed value has an unknown format');
    const bytes = Buffer.from(payload, 'base64url');
    const decipher = createDecipheriv('aes-256-gcm', this.#key, bytes.subarray(0, 12));
    decipher.setAuthTag(bytes.subarray(12, 28));
    return Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString('utf8');
  }
}
