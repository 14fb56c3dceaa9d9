import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { ApiError } from '../../../src/errors/api-error.ts';
import { COST_CEILINGS, parseImportedPasswordHash } from '../../../src/methods/password/cost-ceilings.ts';

const SALT = 'c29tZXNhbHQ';
const TAG = 'CTFhFdXPJO1aFaMaO6Mm5c8y7cJHAph8ArZWb2GRPPc';
const argon2id = (costs: string) => `$argon2id$v=19$${costs}$${SALT}$${TAG}`;
const bcrypt = (cost: string) => `$2b$${cost}$/OK.fbVrR/bpIqNJ5ianF.CE5elHaaO4EbggVDjb8P19RukzXSM3e`;
const pbkdf2 = (digest: string, iterations: number, keyBytes: number) =>
  `$pbkdf2-${digest}$i=${iterations},l=${keyBytes}$c2FsdA$${Buffer.alloc(keyBytes, 1).toString('base64').replace(/=+$/, '')}`;

function assertAboveCeiling(text: string, rule: RegExp): void {
  assert.throws(
    () => parseImportedPasswordHash(text),
    (error: unknown) =>
      error instanceof ApiError &&
      error.status === 400 &&
      error.message.startsWith('body.params.password_hash: ') &&
      rule.test(error.message) &&
      /so that one login cannot cost more than the service allows/.test(error.message),
  );
}

describe('Cost ceilings at import', () => {
  it('are the documented constants', () => {
    assert.deepEqual(COST_CEILINGS, {
      argon2MemoryKiB: 262144,
      argon2Passes: 10,
      argon2MemoryPassesKiB: 262144,
      argon2Parallelism: 16,
      bcryptCost: 13,
      pbkdf2Iterations: { sha1: 3_000_000, sha256: 3_000_000, sha512: 1_000_000 },
      pbkdf2KeyBytes: 64,
    });
  });

  it('accept each cost at its ceiling, and return the hash with the costs it states', () => {
    const salt = Buffer.from(SALT, 'base64url');
    const tag = Buffer.from(TAG, 'base64url');
    const argon2At = (memoryKiB: number, passes: number, parallelism: number) => ({
      function: 'argon2id',
      version: 0x13,
      memoryKiB,
      passes,
      parallelism,
      salt,
      hash: tag,
    });
    assert.deepEqual(parseImportedPasswordHash(argon2id('m=262144,t=1,p=16')), argon2At(262144, 1, 16));
    assert.deepEqual(parseImportedPasswordHash(argon2id('m=65536,t=4,p=1')), argon2At(65536, 4, 1));
    assert.deepEqual(parseImportedPasswordHash(argon2id('m=19456,t=10,p=1')), argon2At(19456, 10, 1));

    const bcrypt13 = parseImportedPasswordHash(bcrypt('13'));
    assert.equal(bcrypt13.function, 'bcrypt');
    assert.deepEqual([bcrypt13.version, bcrypt13.cost, bcrypt13.salt.length, bcrypt13.hash.length], ['2b', 13, 16, 23]);

    const pbkdf2At = (version: string, iterations: number, keyLength: number) => ({
      function: 'pbkdf2',
      version,
      iterations,
      keyLength,
      salt: Buffer.from('salt'),
      hash: Buffer.alloc(keyLength, 1),
    });
    assert.deepEqual(parseImportedPasswordHash(pbkdf2('sha512', 1_000_000, 64)), pbkdf2At('sha512', 1_000_000, 64));
    assert.deepEqual(parseImportedPasswordHash(pbkdf2('sha256', 3_000_000, 32)), pbkdf2At('sha256', 3_000_000, 32));
    assert.deepEqual(parseImportedPasswordHash(pbkdf2('sha1', 3_000_000, 20)), pbkdf2At('sha1', 3_000_000, 20));
    assert.deepEqual(parseImportedPasswordHash(pbkdf2('sha256', 1_500_000, 64)), pbkdf2At('sha256', 1_500_000, 64));
  });

  it('refuse argon2 memory, passes, lanes and memory × passes above the ceiling, saying it', () => {
    assertAboveCeiling(argon2id('m=262145,t=1,p=1'), /argon2id m must be at most 262144 KiB \(256 MiB\)/);
    assertAboveCeiling(argon2id('m=8192,t=11,p=1'), /argon2id t must be at most 10/);
    assertAboveCeiling(argon2id('m=65536,t=2,p=17'), /argon2id p must be at most 16/);
    assertAboveCeiling(argon2id('m=131072,t=3,p=1'), /argon2id m × t must be at most 262144 KiB/);
    assertAboveCeiling(`$argon2i$m=4294967295,t=2,p=1$${SALT}$${TAG}`, /argon2i m must be at most/);
  });

  it('refuse bcrypt above cost 13 though bcrypt itself allows up to 31', () => {
    assertAboveCeiling(bcrypt('14'), /bcrypt cost must be at most 13/);
    assertAboveCeiling(bcrypt('31'), /bcrypt cost must be at most 13/);
  });

  it("refuse pbkdf2 above its digest's iterations, above 64-byte keys, and keys that multiply the iterations", () => {
    const rfc = JSON.parse(readFileSync(new URL('fixtures/rfc6070-pbkdf2-sha1.json', import.meta.url), 'utf8'));
    assertAboveCeiling(rfc.above_ceiling.hash, /pbkdf2-sha1 iterations i must be at most 3000000/);
    assertAboveCeiling(pbkdf2('sha512', 1_000_001, 64), /pbkdf2-sha512 iterations i must be at most 1000000/);
    assertAboveCeiling(pbkdf2('sha256', 3_000_001, 32), /pbkdf2-sha256 iterations i must be at most 3000000/);
    assertAboveCeiling(pbkdf2('sha512', 1000, 65), /key length l must be at most 64 bytes/);
    assertAboveCeiling(pbkdf2('sha1', 1_000_000, 64), /pbkdf2-sha1 i × blocks must be at most 3000000 \(l=64 is 4 blocks\)/);
    assertAboveCeiling(pbkdf2('sha256', 1_500_001, 33), /l=33 is 2 blocks/);
  });
});
