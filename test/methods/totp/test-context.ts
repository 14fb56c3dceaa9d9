import { createHmac } from 'node:crypto';
import type { CredentialTypeContext } from '../../../src/credentials/credential-type.ts';
import { SecretBox } from '../../../src/crypto/secret-box.ts';
import { ApiError } from '../../../src/errors/api-error.ts';

/**
 * A CredentialTypeContext as the service makes one (AES-GCM sealing, HMAC-SHA-256 code hashes),
 * built here so these tests depend only on the contract. It records what was sealed and hashed.
 */
export function testContext(secret = 'a test secret of at least thirty-two characters') {
  const box = new SecretBox(secret, 'credential-secrets-test');
  const sealed: string[] = [];
  const hashed: string[] = [];
  const context: CredentialTypeContext = {
    seal: (plaintext) => (sealed.push(plaintext), box.seal(plaintext)),
    open: (value) => box.open(value),
    hashCode: (code) => (hashed.push(code), createHmac('sha256', secret).update(code, 'utf8').digest('base64url')),
  };
  return { context, sealed, hashed };
}

/** An assert.throws matcher: a 400 INVALID_FIELD on `field` whose message contains every fragment. */
export function invalid(field: string, ...fragments: string[]) {
  return (error: unknown): boolean => {
    if (!(error instanceof ApiError)) throw new Error(`expected an ApiError, got ${String(error)}`);
    if (error.status !== 400 || error.code !== 'INVALID_FIELD') throw new Error(`expected a 400 INVALID_FIELD, got ${error.status} ${error.code}`);
    const expected = [`${field}:`, ...fragments];
    const missing = expected.filter((fragment) => !error.message.includes(fragment));
    if (missing.length > 0) throw new Error(`message "${error.message}" lacks ${missing.join(', ')}`);
    return true;
  };
}
