import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { backends } from '../helpers/backends.ts';
import { ConsoleAgent, consolePerson, signedInAdmin, signInWithPassword } from '../helpers/console.ts';
import { startTestService, type TestOrg, type TestService } from '../helpers/service.ts';

/** The settings form as a browser posts it: every field, the checkbox only when ticked. */
const form = (fields: Record<string, string | null> = {}) => ({
  token_lifetime_ceiling: '3600',
  email_sender: '',
  email_sender_name: '',
  webauthn_rp_id: '',
  webauthn_origins: '',
  webauthn_refuse_clone_warning: null,
  svid_jwks_urls: '',
  allowed_spiffe_ids: '',
  ...fields,
});

for (const backend of backends()) {
  describe(`Console organisation settings, on ${backend.name}`, () => {
    let t: TestService;
    let org: TestOrg;
    let agent: ConsoleAgent;
    let csrf: string;
    const config = async () => (await t.call('GET', '/organizations/config', { as: org })).body.result;

    before(async () => {
      t = await startTestService(backend);
      org = await t.org();
      ({ agent, csrf } = await signedInAdmin(t, org));
    });
    after(() => t.close());

    it('shows the configuration in force, and warns that passkeys are off', async () => {
      const page = await agent.get('/console/admin/organization');
      assert.equal(page.status, 200);
      assert.match(page.html, /<h1>Organisation settings<\/h1>/);
      assert.match(page.html, /Passkeys are off:/);
      assert.match(page.html, /name="token_lifetime_ceiling" value="3600"/);
      assert.doesNotMatch(page.html, /name="webauthn_refuse_clone_warning" value="yes" checked/);
    });

    it('saves every field as PATCH /organizations/config would, and the form shows them back', async () => {
      const answer = await agent.post(
        '/console/admin/organization',
        form({
          token_lifetime_ceiling: '900',
          email_sender: 'noreply@example.org',
          email_sender_name: 'Example Helpdesk',
          webauthn_rp_id: 'example.com',
          webauthn_origins: 'https://example.com\r\n\r\n  https://login.example.com:8443\r\n',
          webauthn_refuse_clone_warning: 'yes',
          svid_jwks_urls: 'prod.example.org   https://spire.example.org/keys\r\nconstructor https://spire.example.org/other',
          allowed_spiffe_ids: 'spiffe://prod.example.org/ns/default/sa/gateway',
        }),
        csrf,
      );
      assert.equal(answer.status, 303, answer.html.slice(0, 500));
      const page = await agent.follow(answer);
      assert.match(page.html, /Settings saved\./);
      assert.doesNotMatch(page.html, /Passkeys are off/);
      assert.match(page.html, /name="webauthn_refuse_clone_warning" value="yes" checked/);
      assert.match(page.html, /https:\/\/example\.com\nhttps:\/\/login\.example\.com:8443<\/textarea>/);
      assert.deepEqual(await config(), {
        token_lifetime_ceiling: 900,
        email_sender: 'noreply@example.org',
        email_sender_name: 'Example Helpdesk',
        webauthn_rp_id: 'example.com',
        webauthn_origins: ['https://example.com', 'https://login.example.com:8443'],
        webauthn_refuse_clone_warning: true,
        svid_jwks_urls: { 'prod.example.org': 'https://spire.example.org/keys', constructor: 'https://spire.example.org/other' },
        allowed_spiffe_ids: ['spiffe://prod.example.org/ns/default/sa/gateway'],
      });
      const off = await agent.post('/console/admin/organization', form(), csrf);
      assert.equal(off.status, 303);
      const cleared = await config();
      assert.deepEqual([cleared.email_sender, cleared.webauthn_rp_id, cleared.webauthn_origins, cleared.svid_jwks_urls], [null, null, [], {}]);
      assert.match((await agent.follow(off)).html, /Passkeys are off:/);
    });

    const refusals: [string, Record<string, string>, RegExp][] = [
      ['a ceiling under a minute', { token_lifetime_ceiling: '10' }, /token_lifetime_ceiling: must be &gt;= 60/],
      ['a ceiling over a day', { token_lifetime_ceiling: '86401' }, /token_lifetime_ceiling: must be &lt;= 86400/],
      ['a ceiling that is no number', { token_lifetime_ceiling: 'an hour' }, /token_lifetime_ceiling: must be an integer/],
      [
        'an http origin that is not localhost',
        { webauthn_origins: 'http://example.com' },
        /webauthn_origins\[0\]: must use https \(http is allowed for localhost only\)/,
      ],
      [
        'an origin outside the relying party',
        { webauthn_rp_id: 'example.com', webauthn_origins: 'https://example.com\nhttps://evil-example.com' },
        /webauthn_origins\[1\]: host evil-example\.com is not webauthn_rp_id \(example\.com\) or a subdomain of it/,
      ],
      ['a repeated origin', { webauthn_origins: 'https://a.example\nhttps://a.example' }, /webauthn_origins: must not repeat an item/],
      ['an RP id with a scheme', { webauthn_rp_id: 'https://example.com' }, /webauthn_rp_id: must be a registrable domain/],
      ['a sender that is no address', { email_sender: 'Tessera' }, /email_sender: must be an email address/],
      [
        'a sender name with a bidirectional override',
        { email_sender_name: 'Help\u202edesk' },
        /email_sender_name: must not contain control or format characters/,
      ],
      ['a JWKS line without a URL', { svid_jwks_urls: 'example.org' }, /svid_jwks_urls line 1: must be a trust domain, a space, then its JWKS URL/],
      [
        'a trust domain twice',
        { svid_jwks_urls: 'example.org https://a.example/keys\n\nexample.org https://b.example/keys' },
        /svid_jwks_urls line 3: trust domain example\.org is already on line 1/,
      ],
      ['plain http JWKS', { svid_jwks_urls: 'example.org http://spire.example.org/keys' }, /svid_jwks_urls\.example\.org: must use https/],
      [
        'loopback http JWKS outside development',
        { svid_jwks_urls: 'example.org http://127.0.0.1:8081/keys' },
        /svid_jwks_urls\.example\.org: http is allowed for loopback only when the service runs with TESSERA_DEV=1/,
      ],
      ['an uppercase trust domain', { svid_jwks_urls: 'Example.org https://x.example/keys' }, /svid_jwks_urls: key &quot;Example\.org&quot; must match/],
      [
        'a SPIFFE ID of an unlisted trust domain',
        { allowed_spiffe_ids: 'spiffe://other.org/gateway' },
        /allowed_spiffe_ids\[0\]: trust domain other\.org has no entry in svid_jwks_urls/,
      ],
    ];
    for (const [name, fields, message] of refusals) {
      it(`refuses ${name} with 400 naming the field and the rule, keeps what was typed and saves nothing`, async () => {
        const before = await config();
        const answer = await agent.post('/console/admin/organization', form({ email_sender_name: 'Typed Name', ...fields }), csrf);
        assert.equal(answer.status, 400, answer.html.slice(0, 500));
        assert.match(answer.html, /There is a problem/);
        assert.match(answer.html, message);
        if (!('email_sender_name' in fields)) assert.match(answer.html, /name="email_sender_name" value="Typed Name"/);
        assert.deepEqual(await config(), before);
      });
    }

    it('refuses a form without its CSRF token (403) and saves nothing', async () => {
      const before = await config();
      const answer = await agent.post('/console/admin/organization', { ...form({ token_lifetime_ceiling: '120' }), _csrf: null }, '');
      assert.equal(answer.status, 403);
      assert.match(answer.html, /_csrf: is missing or does not belong to this browser/);
      assert.deepEqual(await config(), before);
    });

    it('answers 403 to a person without the admin role, on the page and its form, and saves nothing', async () => {
      const verifier = new ConsoleAgent(t.url);
      const token = (await signInWithPassword(verifier, org.orgId, await consolePerson(t, org, { roles: ['verifier'] }))).csrf;
      const before = await config();
      assert.equal((await verifier.get('/console/admin/organization')).status, 403);
      assert.equal((await verifier.post('/console/admin/organization', form({ token_lifetime_ceiling: '120' }), token)).status, 403);
      assert.deepEqual(await config(), before);
    });
  });
}

describe('Console organisation settings in development mode', () => {
  it('accepts a loopback http JWKS URL there, as the API does', async () => {
    const [sqlite] = backends();
    const t = await startTestService(sqlite!, { TESSERA_DEV: '1' });
    try {
      const org = await t.org();
      const { agent, csrf } = await signedInAdmin(t, org);
      assert.match((await agent.get('/console/admin/organization')).html, /development mode: http on a loopback address is accepted too/);
      const answer = await agent.post('/console/admin/organization', form({ svid_jwks_urls: 'example.org http://127.0.0.1:8081/keys' }), csrf);
      assert.equal(answer.status, 303, answer.html.slice(0, 500));
      assert.deepEqual((await t.call('GET', '/organizations/config', { as: org })).body.result.svid_jwks_urls, { 'example.org': 'http://127.0.0.1:8081/keys' });
    } finally {
      await t.close();
    }
  });
});
