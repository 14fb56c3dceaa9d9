import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parsePasswordHash } from '../../../src/methods/password/parse-password-hash.ts';
import { checkPolicy, hashPassword, isWeakerThanPolicy, OWASP_ARGON2ID_POLICY } from '../../../src/methods/password/rehash-policy.ts';
import type { HashJob } from '../../../src/methods/password/threads/hash-job.ts';
import { HashWorkPool } from '../../../src/methods/password/threads/hash-work-pool.ts';
import { verifyPassword } from '../../../src/methods/password/verify-password.ts';
import { verifyWithoutCredential } from '../../../src/methods/password/verify-without-credential.ts';

const pool = new HashWorkPool();

/** A real pool that keeps every job it computed and what it computed. */
class RecordingPool extends HashWorkPool {
  readonly done: { job: HashJob; output: Uint8Array }[] = [];
  override async run(job: HashJob): Promise<Uint8Array> {
    const output = await super.run(job);
    this.done.push({ job, output });
    return output;
  }
}
const pick = <T extends object, K extends keyof T>(value: T, ...keys: K[]) => Object.fromEntries(keys.map((key) => [key, value[key]])) as Pick<T, K>;
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

  it('verifyWithoutCredential costs a policy hash, run in the pool like a verification, and is always false', async () => {
    const recording = new RecordingPool();
    try {
      assert.equal(await verifyWithoutCredential('anything', recording), false);
      const stronger = { memoryKiB: 32768, passes: 3, parallelism: 2 };
      assert.equal(await verifyWithoutCredential('anything', recording, stronger), false);
      // The work done, as the pool saw it: one argon2id 1.3 hash at each policy's costs, computed to the end.
      const argon2At = ({ memoryKiB, passes, parallelism }: typeof stronger) => ({
        type: 'argon2id',
        version: 0x13,
        memory: memoryKiB,
        passes,
        parallelism,
        tagLength: 32,
      });
      assert.deepEqual(
        recording.done.map(({ job }) =>
          job.kind === 'argon2' ? { type: job.type, version: job.version, ...pick(job.inputs, 'memory', 'passes', 'parallelism', 'tagLength') } : job.kind,
        ),
        [argon2At(OWASP_ARGON2ID_POLICY), argon2At(stronger)],
      );
      for (const { job, output } of recording.done) {
        assert.equal(job.kind === 'argon2' && Buffer.from(job.inputs.message).toString('utf8'), 'anything', 'the password given is what is hashed');
        assert.equal(output.length, 32, 'the hash was computed');
      }
    } finally {
      await recording.close();
    }
  });
});
