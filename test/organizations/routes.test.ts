import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { backends } from '../helpers/backends.ts';
import { errorCodes, startTestService, type TestOrg, type TestService } from '../helpers/service.ts';

for (const backend of backends()) {
  describe(`Organisation API on ${backend.name}`, () => {
    let t: TestService;
    let org: TestOrg;

    before(async () => {
      t = await startTestService(backend);
      org = await t.org();
    });
    after(() => t.close());

    it('creates API keys of both kinds, lists them without secrets, refuses a duplicate name', async () => {
      const created = await t.call('POST', '/organizations/api-keys', { as: org, body: { name: 'crm sync', kind: 'integration' } });
      assert.equal(created.status, 201);
      assert.match(created.body.result.api_key, /^tsi_/);
      assert.equal(created.body.result.kind, 'integration');
      const listed = (await t.call('GET', '/organizations/api-keys', { as: org })).body.result;
      assert.deepEqual(
        listed.map((k: { name: string }) => k.name),
        ['first-admin-key', 'crm sync'],
      );
      assert.ok(listed.every((k: Record<string, unknown>) => !('api_key' in k) && !('secret_hash' in k)));
      const duplicate = await t.call('POST', '/organizations/api-keys', { as: org, body: { name: 'crm sync', kind: 'admin' } });
      assert.equal(duplicate.status, 409);
      assert.match(duplicate.body.errors[0].message, /^body\.name: /);
      for (const [body, message] of [
        [{ name: 'x', kind: 'root' }, /^body\.kind: must be one of admin, integration$/],
        [{ kind: 'admin' }, /^body\.name: is required$/],
        [{ name: ' padded ', kind: 'admin' }, /^body\.name: must match /],
      ] as const) {
        const response = await t.call('POST', '/organizations/api-keys', { as: org, body });
        assert.equal(response.status, 400);
        assert.match(response.body.errors[0].message, message);
      }
    });

    it('will not let a key revoke itself, so an organisation keeps an admin key', async () => {
      const self = (await t.call('GET', '/organizations/api-keys', { as: org })).body.result[0];
      const response = await t.call('DELETE', `/organizations/api-keys/${self.id}`, { as: org });
      assert.equal(response.status, 409);
      assert.match(response.body.errors[0].message, /^path\.key_id: is the key making this request/);
      assert.equal((await t.call('GET', '/persons', { as: org })).status, 200);
    });

    it('reads the default configuration and patches fields one at a time', async () => {
      assert.deepEqual((await t.call('GET', '/organizations/config', { as: org })).body.result, {
        token_lifetime_ceiling: 3600,
        svid_jwks_urls: {},
        allowed_spiffe_ids: [],
        email_sender: null,
        email_sender_name: null,
        webauthn_rp_id: null,
        webauthn_origins: [],
        webauthn_refuse_clone_warning: false,
      });
      const patched = await t.call('PATCH', '/organizations/config', {
        as: org,
        body: {
          svid_jwks_urls: { 'prod.example.org': 'https://spire.example.org/keys' },
          allowed_spiffe_ids: ['spiffe://prod.example.org/ns/default/sa/gateway'],
        },
      });
      assert.equal(patched.status, 200);
      const ceiling = await t.call('PATCH', '/organizations/config', {
        as: org,
        body: { token_lifetime_ceiling: 900, email_sender: 'noreply@example.org', email_sender_name: 'Example Helpdesk' },
      });
      assert.deepEqual(ceiling.body.result, {
        token_lifetime_ceiling: 900,
        svid_jwks_urls: { 'prod.example.org': 'https://spire.example.org/keys' },
        allowed_spiffe_ids: ['spiffe://prod.example.org/ns/default/sa/gateway'],
        email_sender: 'noreply@example.org',
        email_sender_name: 'Example Helpdesk',
        webauthn_rp_id: null,
        webauthn_origins: [],
        webauthn_refuse_clone_warning: false,
      });
      assert.deepEqual((await t.call('GET', '/organizations/config', { as: org })).body.result, ceiling.body.result);
    });

    it('sets the WebAuthn relying party, its origins and the clone policy', async () => {
      const own = await t.org();
      const body = {
        webauthn_rp_id: 'example.com',
        webauthn_origins: ['https://example.com', 'https://login.example.com:8443', 'http://localhost:3000'],
        webauthn_refuse_clone_warning: true,
      };
      const response = await t.call('PATCH', '/organizations/config', { as: own, body: { ...body, webauthn_origins: body.webauthn_origins.slice(0, 2) } });
      assert.equal(response.status, 200);
      assert.equal(response.body.result.webauthn_rp_id, 'example.com');
      assert.deepEqual(response.body.result.webauthn_origins, ['https://example.com', 'https://login.example.com:8443']);
      assert.equal(response.body.result.webauthn_refuse_clone_warning, true);
      const local = await t.call('PATCH', '/organizations/config', {
        as: own,
        body: { webauthn_rp_id: 'localhost', webauthn_origins: ['http://localhost:3000'] },
      });
      assert.equal(local.status, 200);
      const off = await t.call('PATCH', '/organizations/config', { as: own, body: { webauthn_rp_id: null, webauthn_origins: [] } });
      assert.deepEqual([off.body.result.webauthn_rp_id, off.body.result.webauthn_origins], [null, []]);
    });

    const badPatches: [string, unknown, RegExp][] = [
      ['an empty patch', {}, /^body: must NOT have fewer than 1 properties$/],
      ['an unknown field', { token_ttl: 5 }, /^body\.token_ttl: is not a known field$/],
      ['a ceiling under a minute', { token_lifetime_ceiling: 30 }, /^body\.token_lifetime_ceiling: must be >= 60$/],
      ['plain http JWKS', { svid_jwks_urls: { 'example.org': 'http://spire.example.org/keys' } }, /^body\.svid_jwks_urls\.example\.org: must use https$/],
      [
        'loopback http without TESSERA_DEV',
        { svid_jwks_urls: { 'example.org': 'http://127.0.0.1:8081/keys' } },
        /^body\.svid_jwks_urls\.example\.org: http is allowed for loopback only when the service runs with TESSERA_DEV=1/,
      ],
      ['a JWKS URL that is no URL', { svid_jwks_urls: { 'example.org': 'spire keys' } }, /^body\.svid_jwks_urls\.example\.org: must be an absolute URL$/],
      ['an uppercase trust domain', { svid_jwks_urls: { 'Example.org': 'https://x.example/keys' } }, /^body\.svid_jwks_urls: key "Example\.org" must match/],
      [
        'a SPIFFE ID with a dot segment',
        { svid_jwks_urls: { 'example.org': 'https://x.example/keys' }, allowed_spiffe_ids: ['spiffe://example.org/a/../b'] },
        /^body\.allowed_spiffe_ids\[0\]: must be a SPIFFE ID/,
      ],
      [
        'a SPIFFE ID without a path',
        { svid_jwks_urls: { 'example.org': 'https://x.example/keys' }, allowed_spiffe_ids: ['spiffe://example.org'] },
        /^body\.allowed_spiffe_ids\[0\]: must be a SPIFFE ID/,
      ],
      [
        'a SPIFFE ID of an unlisted trust domain',
        { allowed_spiffe_ids: ['spiffe://other.org/gateway'] },
        /^body\.allowed_spiffe_ids\[0\]: trust domain other\.org has no entry in svid_jwks_urls/,
      ],
      ['a sender that is no address', { email_sender: 'Tessera' }, /^body\.email_sender: must be an email address$/],
      ['a sender with a zero-width space', { email_sender: 'no-reply\u200b@example.org' }, /^body\.email_sender: must be an email address$/],
      ['a sender with a mixed-script A-label', { email_sender: 'no-reply@xn--pypal-4ve.com' }, /^body\.email_sender: must be an email address$/],
      ['an empty sender name', { email_sender_name: '' }, /^body\.email_sender_name: must NOT have fewer than 1 characters$/],
      [
        'a sender name with a line break',
        { email_sender_name: 'Help\r\nBcc: x@example.org' },
        /^body\.email_sender_name: must not contain control or format characters/,
      ],
      [
        'a sender name with a bidirectional override',
        { email_sender_name: 'Help\u202edesk' },
        /^body\.email_sender_name: must not contain control or format characters/,
      ],
      ['a sender name with trailing space', { email_sender_name: 'Helpdesk ' }, /^body\.email_sender_name: must not start or end with white space$/],
      ['a sender name too long', { email_sender_name: 'x'.repeat(101) }, /^body\.email_sender_name: must NOT have more than 100 characters$/],
      ['an RP id with a scheme', { webauthn_rp_id: 'https://example.com' }, /^body\.webauthn_rp_id: must be a registrable domain/],
      ['an RP id in capitals', { webauthn_rp_id: 'Example.com' }, /^body\.webauthn_rp_id: must be a registrable domain/],
      ['an RP id that is an IP address', { webauthn_rp_id: '192.168.0.1' }, /^body\.webauthn_rp_id: must be a registrable domain/],
      ['a single-label RP id', { webauthn_rp_id: 'intranet' }, /^body\.webauthn_rp_id: must be a registrable domain/],
      ['an RP id that is a number', { webauthn_rp_id: 5 }, /^body\.webauthn_rp_id: must be a string/],
      ['an http origin', { webauthn_origins: ['http://example.com'] }, /^body\.webauthn_origins\[0\]: must use https \(http is allowed for localhost only\)$/],
      [
        'an origin with a path',
        { webauthn_origins: ['https://example.com/login'] },
        /^body\.webauthn_origins\[0\]: must be an origin, .*did you mean https:\/\/example\.com\?/,
      ],
      ['an origin that is no URL', { webauthn_origins: ['example.com'] }, /^body\.webauthn_origins\[0\]: must be an origin such as/],
      ['a repeated origin', { webauthn_origins: ['https://a.example', 'https://a.example'] }, /^body\.webauthn_origins: must not repeat an item/],
      [
        'an origin outside the RP id',
        { webauthn_rp_id: 'example.com', webauthn_origins: ['https://example.com', 'https://evil-example.com'] },
        /^body\.webauthn_origins\[1\]: host evil-example\.com is not webauthn_rp_id \(example\.com\) or a subdomain of it/,
      ],
      ['a clone policy that is a string', { webauthn_refuse_clone_warning: 'yes' }, /^body\.webauthn_refuse_clone_warning: must be a boolean$/],
    ];
    for (const [name, body, message] of badPatches) {
      it(`refuses ${name} with 400 and keeps the configuration`, async () => {
        const before = (await t.call('GET', '/organizations/config', { as: org })).body.result;
        const response = await t.call('PATCH', '/organizations/config', { as: org, body });
        assert.equal(response.status, 400);
        assert.deepEqual(errorCodes(response.body).slice(0, 1), ['INVALID_FIELD']);
        assert.match(response.body.errors[0].message, message);
        assert.deepEqual((await t.call('GET', '/organizations/config', { as: org })).body.result, before);
      });
    }
  });
}

describe('Organisation config in development mode', () => {
  it('accepts loopback http JWKS URLs only there', async () => {
    const [sqlite] = backends();
    const dev = await startTestService(sqlite!, { TESSERA_DEV: '1' });
    const prod = await startTestService(sqlite!, { TESSERA_DEV: '0', TESSERA_SECRET: 'x'.repeat(32) });
    try {
      const body = { svid_jwks_urls: { 'example.org': 'http://127.0.0.1:8081/keys' } };
      assert.equal((await dev.call('PATCH', '/organizations/config', { as: await dev.org(), body })).status, 200);
      assert.equal((await prod.call('PATCH', '/organizations/config', { as: await prod.org(), body })).status, 400);
    } finally {
      await dev.close();
      await prod.close();
    }
  });
});
