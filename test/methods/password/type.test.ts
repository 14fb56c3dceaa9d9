import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Compile } from 'typebox/compile';
import type { CredentialTypeContext } from '../../../src/credentials/credential-type.ts';
import { ApiError } from '../../../src/errors/api-error.ts';
import { passwordCredentialType, storedPasswordHash } from '../../../src/methods/password/type.ts';

const context: CredentialTypeContext = {
  seal: (text) => `sealed:${text}`,
  open: (text) => text.slice(7),
  hashCode: (code) => `hashed:${code}`,
};
const IMPORTED = '$2y$05$/OK.fbVrR/bpIqNJ5ianF.CE5elHaaO4EbggVDjb8P19RukzXSM3e';

describe('passwordCredentialType', () => {
  it('is the password type; its params schema is {password_hash: string} and nothing else', () => {
    assert.equal(passwordCredentialType.type, 'password');
    const schema = Compile(passwordCredentialType.paramsSchema);
    assert.equal(schema.Check({ password_hash: IMPORTED }), true);
    assert.equal(schema.Check({}), false, 'missing');
    assert.equal(schema.Check({ password_hash: 42 }), false, 'wrong type');
    assert.equal(schema.Check({ password_hash: '' }), false, 'empty');
    assert.equal(schema.Check({ password_hash: `$2b$${'x'.repeat(600)}` }), false, 'oversized');
    assert.equal(schema.Check({ password_hash: IMPORTED, salt: 'x' }), false, 'unknown field');
  });

  it('prepare keeps the hash as imported in secret and params; present shows exactly it', async () => {
    const prepared = await passwordCredentialType.prepare({ password_hash: IMPORTED }, context);
    assert.deepEqual(prepared, { params: { password_hash: IMPORTED }, secret: { password_hash: IMPORTED } });
    assert.deepEqual(passwordCredentialType.present(prepared), { password_hash: IMPORTED });
    assert.equal(storedPasswordHash(prepared), IMPORTED);
  });

  it('prepare refuses bad formats and costs above the ceilings with a 400 naming the field', async () => {
    for (const password_hash of ['$6$salt$hash', '$2b$17$/OK.fbVrR/bpIqNJ5ianF.CE5elHaaO4EbggVDjb8P19RukzXSM3e', 'plain']) {
      await assert.rejects(
        passwordCredentialType.prepare({ password_hash }, context),
        (error: unknown) => error instanceof ApiError && error.status === 400 && error.message.startsWith('body.params.password_hash: '),
      );
    }
  });
});
