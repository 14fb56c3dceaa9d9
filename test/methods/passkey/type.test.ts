import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import type { CredentialTypeContext } from '../../../src/credentials/credential-type.ts';
import { encodeCbor } from '../../../src/dev/cose-encoding.ts';
import { SOFTWARE_AAGUID, SoftwareAuthenticator } from '../../../src/dev/software-authenticator.ts';
import { ApiError } from '../../../src/errors/api-error.ts';
import { validatorCompiler } from '../../../src/http/validation.ts';
import { ATTESTATION_FORMATS } from '../../../src/methods/passkey/format/params.ts';
import { publicKeyCredentialType } from '../../../src/methods/passkey/type.ts';

// The public-key type needs none of the context's sealing; a context that fails if used shows it.
const context: CredentialTypeContext = {
  seal: () => assert.fail('seal is not used'),
  open: () => assert.fail('open is not used'),
  hashCode: () => assert.fail('hashCode is not used'),
};

const authenticator = new SoftwareAuthenticator({ algorithm: 'EdDSA' });
const keyBase64 = Buffer.from(authenticator.cosePublicKey).toString('base64');

function valid(): Record<string, any> {
  return {
    webauthn_credential_id: authenticator.credentialId,
    public_key: keyBase64,
    authenticator: { aaguid: Buffer.from(SOFTWARE_AAGUID).toString('base64') },
  };
}

function withChange(change: (params: Record<string, any>) => void): Record<string, any> {
  const params = valid();
  change(params);
  return params;
}

async function refusal(params: unknown): Promise<string> {
  const error = await publicKeyCredentialType.prepare(params, context).then(
    () => assert.fail('prepare accepted it'),
    (thrown: unknown) => thrown,
  );
  assert.ok(error instanceof ApiError, String(error));
  assert.equal(error.code, 'INVALID_FIELD');
  assert.equal(error.status, 400);
  return error.message;
}

// Each bad input, the message prepare() gives, and whether the schema alone can already see it.
const badInputs: [string, unknown, RegExp, boolean][] = [
  ['params not an object', 'x', /^body\.params: must be an object/, true],
  ['unknown field', withChange((p) => (p.counter = 1)), /^body\.params\.counter: is not a known field/, true],
  ['unknown authenticator field', withChange((p) => (p.authenticator.model = 'x')), /^body\.params\.authenticator\.model: is not a known field/, true],
  ['credential id missing', withChange((p) => delete p.webauthn_credential_id), /^body\.params\.webauthn_credential_id: is required/, true],
  ['credential id a number', withChange((p) => (p.webauthn_credential_id = 7)), /^body\.params\.webauthn_credential_id: must be a string/, true],
  ['credential id empty', withChange((p) => (p.webauthn_credential_id = '')), /^body\.params\.webauthn_credential_id: must not be empty/, true],
  ['credential id standard base64', withChange((p) => (p.webauthn_credential_id = `${'A'.repeat(30)}+/`)), /webauthn_credential_id: must be base64url/, true],
  ['credential id padded', withChange((p) => (p.webauthn_credential_id = `${'A'.repeat(22)}==`)), /webauthn_credential_id: must be base64url/, true],
  [
    'credential id short',
    withChange((p) => (p.webauthn_credential_id = 'AAAAAAAAAAAAAAAAAAAA')),
    /webauthn_credential_id: must decode to 16 to 1023 bytes, not 15/,
    true,
  ],
  [
    'credential id oversized',
    withChange((p) => (p.webauthn_credential_id = 'A'.repeat(1368))),
    /webauthn_credential_id: must decode to 16 to 1023 bytes, not 1026/,
    true,
  ],
  ['credential id non-canonical', withChange((p) => (p.webauthn_credential_id = `${'A'.repeat(21)}B`)), /webauthn_credential_id: must be base64url/, false],
  ['public key missing', withChange((p) => delete p.public_key), /^body\.params\.public_key: is required/, true],
  ['public key an object', withChange((p) => (p.public_key = {})), /^body\.params\.public_key: must be a string/, true],
  ['public key empty', withChange((p) => (p.public_key = '')), /^body\.params\.public_key: must not be empty/, true],
  ['public key oversized', withChange((p) => (p.public_key = 'A'.repeat(2736))), /^body\.params\.public_key: is too long/, true],
  ['public key not base64', withChange((p) => (p.public_key = 'pk:not base64')), /^body\.params\.public_key: must be base64 or base64url/, true],
  ['public key mixed alphabets', withChange((p) => (p.public_key = 'ab+_')), /^body\.params\.public_key: must be base64 or base64url/, false],
  [
    'public key a PEM body',
    withChange((p) => (p.public_key = 'MCowBQYDK2VwAyEAGb9ECWmEzf6FQbrBZ9w7lshQhqowtrbLDFw4rXAxZuE=')),
    /public_key: must be a COSE public key.*CBOR/,
    false,
  ],
  [
    'public key X25519',
    withChange((p) => (p.public_key = cose([1, 1], [3, -25], [-1, 4], [-2, new Uint8Array(32)]))),
    /public_key: must be a COSE public key.*alg \(label 3\) -8/,
    false,
  ],
  ['attestation type unknown', withChange((p) => (p.attestation_type = 'direct')), /^body\.params\.attestation_type: must be one of none, packed/, true],
  ['attestation type a number', withChange((p) => (p.attestation_type = 1)), /^body\.params\.attestation_type: must be one of/, true],
  ['authenticator missing', withChange((p) => delete p.authenticator), /^body\.params\.authenticator: is required/, true],
  ['authenticator an array', withChange((p) => (p.authenticator = [])), /^body\.params\.authenticator: must be an object/, true],
  ['aaguid missing', withChange((p) => delete p.authenticator.aaguid), /^body\.params\.authenticator\.aaguid: is required/, true],
  ['aaguid as a UUID', withChange((p) => (p.authenticator.aaguid = '5e5e5e5e-0011-4a2b-b0c0-ffee00c0ffee')), /aaguid: must be base64 of 16 bytes/, true],
  ['aaguid of 15 bytes', withChange((p) => (p.authenticator.aaguid = Buffer.alloc(15).toString('base64'))), /aaguid: must be base64 of 16 bytes/, true],
  ['aaguid empty', withChange((p) => (p.authenticator.aaguid = '')), /aaguid: must not be empty/, true],
  ['sign count negative', withChange((p) => (p.authenticator.sign_count = -1)), /sign_count: must be an integer from 0 to 4294967295/, true],
  ['sign count fractional', withChange((p) => (p.authenticator.sign_count = 1.5)), /sign_count: must be an integer/, true],
  ['sign count above 32 bits', withChange((p) => (p.authenticator.sign_count = 2 ** 32)), /sign_count: must be an integer/, true],
  ['sign count a string', withChange((p) => (p.authenticator.sign_count = '3')), /sign_count: must be an integer/, true],
  ['clone warning a string', withChange((p) => (p.authenticator.clone_warning = 'false')), /clone_warning: must be a boolean/, true],
];

function cose(...entries: [number, unknown][]): string {
  return Buffer.from(encodeCbor(new Map(entries))).toString('base64');
}

describe('The public-key credential type', () => {
  it('prepares minimal params with spec §2.3 defaults and keeps no secret', async () => {
    const prepared = await publicKeyCredentialType.prepare(valid(), context);
    assert.equal(prepared.secret, null);
    assert.deepEqual(publicKeyCredentialType.present(prepared), {
      webauthn_credential_id: authenticator.credentialId,
      public_key: keyBase64,
      attestation_type: 'none',
      authenticator: { aaguid: Buffer.from(SOFTWARE_AAGUID).toString('base64'), sign_count: 0, clone_warning: false },
    });
  });

  it('normalises a base64url key and an unpadded base64url aaguid to standard base64 of the same bytes', async () => {
    const params = withChange((p) => {
      p.public_key = Buffer.from(authenticator.cosePublicKey).toString('base64url');
      p.authenticator.aaguid = Buffer.from(SOFTWARE_AAGUID).toString('base64url');
      p.authenticator.sign_count = 41;
      p.authenticator.clone_warning = true;
      p.attestation_type = 'packed';
    });
    const presented = publicKeyCredentialType.present(await publicKeyCredentialType.prepare(params, context));
    assert.equal(presented.public_key, keyBase64);
    assert.deepEqual(presented.authenticator, { aaguid: Buffer.from(SOFTWARE_AAGUID).toString('base64'), sign_count: 41, clone_warning: true });
    assert.equal(presented.attestation_type, 'packed');
  });

  it('accepts every registered attestation statement format', async () => {
    for (const format of ATTESTATION_FORMATS) {
      const prepared = await publicKeyCredentialType.prepare(
        withChange((p) => (p.attestation_type = format)),
        context,
      );
      assert.equal(publicKeyCredentialType.present(prepared).attestation_type, format);
    }
  });

  for (const [name, params, message] of badInputs) {
    it(`refuses with a 400 naming the field: ${name}`, async () => {
      assert.match(await refusal(params), message);
    });
  }

  it("imports the example of docs/credentials.md's public-key section as shown", async () => {
    const doc = readFileSync(new URL('../../../docs/credentials.md', import.meta.url), 'utf8');
    const section = doc.slice(doc.indexOf('## Public keys (passkeys)'));
    const example = JSON.parse(/```json\n([\s\S]*?)```/.exec(section)![1]!);
    const presented = publicKeyCredentialType.present(await publicKeyCredentialType.prepare(example.params, context));
    assert.deepEqual(presented, { ...example.params, authenticator: { ...example.params.authenticator, clone_warning: false } });
  });

  it('present() refuses a stored record this type did not make', () => {
    assert.throws(() => publicKeyCredentialType.present({ params: { public_key: 'x' }, secret: null }), /does not have the shape/);
  });
});

describe("The public-key type's schema (what the routes check first)", () => {
  const validate = validatorCompiler({ schema: publicKeyCredentialType.paramsSchema, httpPart: 'body', method: 'POST', url: '/' }) as (
    data: unknown,
  ) => boolean;

  it('accepts the valid params and fills the same defaults as prepare()', () => {
    const params = valid();
    assert.equal(validate(params), true);
    assert.equal(params.attestation_type, 'none');
    assert.deepEqual(params.authenticator, { aaguid: Buffer.from(SOFTWARE_AAGUID).toString('base64'), sign_count: 0, clone_warning: false });
  });

  for (const [name, params, , schemaSees] of badInputs) {
    it(`${schemaSees ? 'refuses' : 'leaves to prepare()'}: ${name}`, () => {
      assert.equal(validate(structuredClone(params)), !schemaSees);
    });
  }
});
