import assert from 'node:assert/strict';
import { argon2Sync } from 'node:crypto';
import { describe, it } from 'node:test';
import { argon2Compute } from '../../../src/methods/password/legacy-verification/argon2-reference.ts';
import { readFixture } from './fixtures.ts';

interface Rfc9106 {
  inputs: {
    password_hex: string;
    salt_hex: string;
    secret_hex: string;
    associated_data_hex: string;
    memory_kib: number;
    passes: number;
    parallelism: number;
    tag_length: number;
  };
  tags: Record<'argon2d' | 'argon2i' | 'argon2id', string>;
}

const rfc = readFixture<Rfc9106>('rfc9106-argon2.json');
const inputs = {
  message: Buffer.from(rfc.inputs.password_hex, 'hex'),
  nonce: Buffer.from(rfc.inputs.salt_hex, 'hex'),
  secret: Buffer.from(rfc.inputs.secret_hex, 'hex'),
  associatedData: Buffer.from(rfc.inputs.associated_data_hex, 'hex'),
  memory: rfc.inputs.memory_kib,
  passes: rfc.inputs.passes,
  parallelism: rfc.inputs.parallelism,
  tagLength: rfc.inputs.tag_length,
};

describe('The Argon2 computations verification relies on, against RFC 9106 §5', () => {
  for (const type of ['argon2d', 'argon2i', 'argon2id'] as const) {
    it(`${type}: crypto.argon2 (1.3 hashes) and the transcription (1.0 hashes) give the RFC's tag`, () => {
      assert.equal(argon2Sync(type, inputs).toString('hex'), rfc.tags[type]);
      assert.equal(Buffer.from(argon2Compute(type, 0x13, inputs)).toString('hex'), rfc.tags[type]);
    });
  }

  it('the transcription agrees with crypto.argon2 on 1.3 at OWASP memory', () => {
    const owasp = { message: Buffer.from('pässwörd'), nonce: Buffer.alloc(16, 9), memory: 19456, passes: 2, parallelism: 1, tagLength: 32 };
    assert.deepEqual(Buffer.from(argon2Compute('argon2id', 0x13, owasp)), argon2Sync('argon2id', owasp));
  });

  it('computes 1.0 as its own version, not as 1.3 (the argon2 CLI vectors check its value)', () => {
    assert.notEqual(Buffer.from(argon2Compute('argon2i', 0x10, inputs)).toString('hex'), rfc.tags.argon2i);
  });
});
