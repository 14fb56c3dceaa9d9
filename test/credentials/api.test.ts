import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SoftwareAuthenticator } from '../../src/dev/software-authenticator.ts';
import { backends } from '../helpers/backends.ts';
import { createPerson } from '../helpers/oauth.ts';
import { errorCodes, startTestService, type TestOrg, type TestService } from '../helpers/service.ts';

/** The registered credential types, end to end through the API (the routes' own rules are in routes.test.ts). */
for (const backend of backends()) {
  describe(`Credentials API with the registered types, on ${backend.name}`, () => {
    let t: TestService;
    let org: TestOrg;
    let person: string;
    const path = () => `/persons/${person}/credentials`;
    const count = async () => (await t.call('GET', path(), { as: org })).body.meta.cursor_pagination.total_count as number;

    before(async () => {
      t = await startTestService(backend);
      org = await t.org();
      person = await createPerson(t, org);
    });
    after(() => t.close());

    it('imports a TOTP credential: 201 with spec §2.3 params (totals only), the secret and codes never shown', async () => {
      const body = {
        type: 'totp',
        label: 'phone',
        params: {
          key_uri: 'otpauth://totp/Example:ada%40example.com?secret=JBSWY3DPEHPK3PXPJBSWY3DP&issuer=Example&algorithm=SHA256&digits=8&period=60',
          recovery_codes_total: 10,
          unused_recovery_codes: ['ABCDE-FGHJK', 'MNPQR-STVWX'],
        },
      };
      const created = await t.call('POST', path(), { as: org, body });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const { id, ...rest } = created.body.result;
      assert.match(id, /^crd_/);
      assert.deepEqual(rest, { last_used: null, type: 'totp', params: { recovery_codes_total: 10, recovery_codes_unused: 2 }, label: 'phone' });
      const listed = await t.call('GET', path(), { as: org });
      const text = JSON.stringify(listed.body);
      for (const secret of ['JBSWY3DPEHPK3PXP', 'ABCDE-FGHJK', 'MNPQR']) assert.ok(!text.includes(secret), `${secret} is never shown`);
      assert.equal((await t.call('DELETE', `${path()}/${id}`, { as: org })).status, 204);
    });

    it('imports a passkey made by a software authenticator: 201 with spec §2.3 params and defaults', async () => {
      const authenticator = new SoftwareAuthenticator({ algorithm: 'ES256' });
      const params = {
        webauthn_credential_id: authenticator.credentialId,
        public_key: Buffer.from(authenticator.cosePublicKey).toString('base64'),
        authenticator: { aaguid: Buffer.from(authenticator.aaguid).toString('base64') },
      };
      const created = await t.call('POST', path(), { as: org, body: { type: 'public-key', params } });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      assert.deepEqual(created.body.result.params, {
        ...params,
        attestation_type: 'none',
        authenticator: { ...params.authenticator, sign_count: 0, clone_warning: false },
      });
      assert.equal(created.body.result.type, 'public-key');
    });

    it('imports a password hash as it is: 201 with the hash returned as imported (spec §2.3)', async () => {
      // htpasswd -bnBC 5 ada 'correct horse' (apache2-utils), the user name cut off
      const hash = '$2y$05$UQeaV.UoUerfCtXgzU20DOaPmC4S3BMmyN8ihgm98kxvt4jC7qzHO';
      const created = await t.call('POST', path(), { as: org, body: { type: 'password', params: { password_hash: hash } } });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      assert.deepEqual(created.body.result.params, { password_hash: hash });
    });

    for (const [name, body, field] of [
      ['an md5-crypt hash', { type: 'password', params: { password_hash: '$1$saltsalt$qjXMvbEw8oaL.CzflDugX/' } }, 'body.params.password_hash'],
      ['a bcrypt cost above the ceiling (17)', { type: 'password', params: { password_hash: `$2b$17$${'a'.repeat(53)}` } }, 'body.params.password_hash'],
      [
        'a key URI with digits=7',
        { type: 'totp', params: { key_uri: 'otpauth://totp/E:a?secret=JBSWY3DPEHPK3PXP&digits=7', recovery_codes_total: 0, unused_recovery_codes: [] } },
        'body.params.key_uri',
      ],
      [
        'a key URI for hotp',
        { type: 'totp', params: { key_uri: 'otpauth://hotp/E:a?secret=JBSWY3DPEHPK3PXP&counter=1', recovery_codes_total: 0, unused_recovery_codes: [] } },
        'body.params.key_uri',
      ],
      [
        'fewer recovery codes in total than unused',
        {
          type: 'totp',
          params: { key_uri: 'otpauth://totp/E:a?secret=JBSWY3DPEHPK3PXP', recovery_codes_total: 1, unused_recovery_codes: ['ABCDE-FGHJK', 'MNPQR-STVWX'] },
        },
        'body.params.recovery_codes_total',
      ],
      [
        'a public key that is not a COSE key',
        {
          type: 'public-key',
          params: { webauthn_credential_id: 'AAAAAAAAAAAAAAAAAAAAAA', public_key: 'bm90IGEga2V5', authenticator: { aaguid: 'AAAAAAAAAAAAAAAAAAAAAA==' } },
        },
        'body.params.public_key',
      ],
    ] as [string, unknown, string][]) {
      it(`refuses ${name}: 400 naming ${field}, nothing stored`, async () => {
        const before = await count();
        const refused = await t.call('POST', path(), { as: org, body });
        assert.deepEqual([refused.status, errorCodes(refused.body)], [400, ['INVALID_FIELD']]);
        assert.ok(refused.body.errors[0].message.startsWith(`${field}: `), refused.body.errors[0].message);
        assert.equal(await count(), before);
      });
    }
  });
}
