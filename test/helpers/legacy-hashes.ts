import { argon2Sync, pbkdf2Sync, randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { newId } from '../../src/crypto/ids.ts';
import type { TestOrg, TestService } from './service.ts';

/** The `bcrypt` package ships no types; these are the calls used. */
const bcrypt = createRequire(import.meta.url)('bcrypt') as { hashSync(data: string, salt: string): string; genSaltSync(rounds: number): string };

const phc = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64').replace(/=+$/, '');

/** A bcrypt hash of `password` at `cost`, as the old system (PHP, Rails) made it. */
export function bcryptHash(password: string, cost: number): string {
  return bcrypt.hashSync(password, bcrypt.genSaltSync(cost)).replace(/^\$2a\$/, '$2b$');
}

/** An argon2id 1.3 PHC string of `password` with m (KiB) and t, one lane. */
export function argon2idHash(password: string, memoryKiB: number, passes: number): string {
  const nonce = randomBytes(16);
  const tag = argon2Sync('argon2id', { message: password, nonce, memory: memoryKiB, passes, parallelism: 1, tagLength: 32 });
  return `$argon2id$v=19$m=${memoryKiB},t=${passes},p=1$${phc(nonce)}$${phc(tag)}`;
}

/** A pbkdf2-sha256 hash of `password` in the service's format, with a 32-byte key. */
export function pbkdf2Sha256Hash(password: string, iterations: number): string {
  const salt = randomBytes(16);
  return `$pbkdf2-sha256$i=${iterations},l=32$${phc(salt)}$${phc(pbkdf2Sync(password, salt, iterations, 32, 'sha256'))}`;
}

/**
 * Writes a password credential straight into the store, as a release with higher cost ceilings
 * accepted it: the API of this release refuses such a hash, so this is the only way to have one.
 * Its parameters are what matters, so the hash part need not be of any password.
 */
export async function plantStoredHash(t: TestService, org: TestOrg, personId: string, passwordHash: string): Promise<string> {
  const id = newId('crd');
  const created = await t.service.store.createCredential({
    id,
    orgId: org.orgId,
    personId,
    type: 'password',
    label: null,
    params: { password_hash: passwordHash },
    secret: { password_hash: passwordHash },
    createdAt: Date.now(),
  });
  if (!created) throw new Error('planting the credential failed: no such person');
  return id;
}
