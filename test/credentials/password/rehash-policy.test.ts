import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HashWorkPool } from '../../../src/credentials/password/hash-work-pool.ts';
import { parsePasswordHash } from '../../../src/credentials/password/parse-password-hash.ts';
import { checkPolicy, hashPassword, isWeakerThanPolicy, OWASP_ARGON2ID_POLICY } from '../../../src/credentials/password/rehash-policy.ts';
import { verifyPassword } from '../../../src/credentials/password/verify-password.ts';
import { verifyWithoutCredential } from '../../../src/credentials/password/verify-without-credential.ts';

const pool = new HashWorkPool();
const S = 'c29tZXNhbHRzb21lc2FsdA'; // 16 bytes
const T = 'CTFhFdXPJO1aFaMaO6Mm5c8y7cJHAph8ArZWb2GRPPc'; // 32 bytes

describe('Rehash policy', () => {
  it('defaults to OWASP argon2id: m=19456 KiB, t=2, p=1', () => {
    assert.deepEqual(OWASP_ARGON2ID_POLICY, { memoryKiB: 19456, passes: 2, parallelism: 1 });
  });

  it('calls weaker: other functions, argon2 1.0, any cost below the policy, short salts and tags', () => {
    const weaker = [
      '$2b$12$/OK.fbVrR/bpIqNJ5ianF.CE5elHaaO4EbggVDjb8P19RukzXSM3e',
      '$pbkdf2-sha256$i=600000,l=32$c2FsdA$CTFhFdXPJO1aFaMaO6Mm5c8y7cJHAph8ArZWb2GRPPc',
      `$argon2i$v=19$m=65536,t=3,p=4$${S}$${T}`,
      `$argon2id$m=65536,t=3,p=1$${S}$${T}`,
      `$argon2id$v=19$m=19455,t=2,p=1$${S}$${T}`,
      `$argon2id$v=19$m=19456,t=1,p=1$${S}$${T}`,
      `$argon2id$v=19$m=65536,t=2,p=1$c29tZXNhbHQ$${T}`,
      `$argon2id$v=19$m=65536,t=2,p=1$${S}$CTFhFdXPJO1aFaMaO6Mm5Q`,
    ];
    for (const hash of weaker) assert.equal(isWeakerThanPolicy(hash), true, hash.slice(0, 40));
    assert.equal(isWeakerThanPolicy(`$argon2id$v=19$m=19456,t=2,p=1$${S}$${T}`), false);
    assert.equal(isWeakerThanPolicy(`$argon2id$v=19$m=65536,t=3,p=4$${S}$${T}`), false);
    assert.equal(isWeakerThanPolicy(`$argon2id$v=19$m=19456,t=2,p=1$${S}$${T}`, { memoryKiB: 65536, passes: 2, parallelism: 1 }), true, 'a stronger policy');
  });

  it('makes an argon2id 1.3 PHC string at the policy, with a fresh 16-byte salt, that verifies', async () => {
    const first = await hashPassword('pässwörd', pool);
    const second = await hashPassword('pässwörd', pool);
    assert.match(first, /^\$argon2id\$v=19\$m=19456,t=2,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/);
    assert.notEqual(first, second, 'salts differ');
    assert.equal(parsePasswordHash(first).salt.length, 16);
    assert.equal(isWeakerThanPolicy(first), false);
    assert.equal(await verifyPassword(first, 'pässwörd', pool), true);
    assert.equal(await verifyPassword(first, 'passwörd', pool), false);
    const stronger = await hashPassword('x', pool, { memoryKiB: 32768, passes: 3, parallelism: 2 });
    assert.match(stronger, /^\$argon2id\$v=19\$m=32768,t=3,p=2\$/);
  });

  it('refuses a policy an import would refuse', () => {
    assert.throws(() => checkPolicy({ memoryKiB: 512 * 1024, passes: 2, parallelism: 1 }), RangeError);
    assert.throws(() => checkPolicy({ memoryKiB: 19456, passes: 0, parallelism: 1 }), RangeError);
    assert.throws(() => checkPolicy({ memoryKiB: 64, passes: 2, parallelism: 16 }), RangeError);
    checkPolicy(OWASP_ARGON2ID_POLICY);
  });

  it('verifyWithoutCredential costs a policy hash and is always false', async () => {
    const started = performance.now();
    assert.equal(await verifyWithoutCredential('anything', pool), false);
    assert.ok(performance.now() - started > 5, 'it did the hash work');
  });
});
