import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { backends } from '../helpers/backends.ts';
import { type ClientKey, clientKey, signAssertion, startClientJwksServer } from '../helpers/client-jwks-server.ts';
import { type ConsoleAgent, type ConsolePage, signedInAdmin } from '../helpers/console.ts';
import { startJwksServer } from '../helpers/jwks-server.ts';
import { oauthPost, token } from '../helpers/oauth.ts';
import { startTestService, type TestOrg, type TestService } from '../helpers/service.ts';

const JWT_BEARER = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
const JWT_SPIFFE = 'urn:ietf:params:oauth:client-assertion-type:jwt-spiffe';

/** The registration form as a browser posts it: every field, the ones left empty as ''. */
const form = (fields: Record<string, string | string[]> = {}) => ({
  client_name: 'keyed',
  grant_types: ['client_credentials'],
  scopes: '',
  access_token_duration: '',
  access_token_format: 'opaque',
  token_endpoint_auth_method: 'client_secret_basic',
  jwks: '',
  jwks_uri: '',
  spiffe_id: '',
  ...fields,
});
/** The switch form of a client's page. */
const switchForm = (fields: Record<string, string>) => ({ token_endpoint_auth_method: '', jwks: '', jwks_uri: '', spiffe_id: '', ...fields });
const jwksText = (...keys: ClientKey[]) => JSON.stringify({ keys: keys.map((key) => key.jwk) }, null, 2);

function registeredId(page: ConsolePage): string {
  const id = /<code id="client-id">(cli_[0-9a-z]+)<\/code>/.exec(page.html)?.[1];
  assert.ok(id, `a client id on the page: ${page.html.slice(0, 300)}`);
  return id;
}

/** The list's row of one client, from its name to the end of its actions. */
function rowOf(list: ConsolePage, id: string): string {
  const start = list.html.indexOf(`<a href="/console/admin/clients/${id}">`);
  assert.ok(start > 0, `the list shows ${id}`);
  return list.html.slice(start, list.html.indexOf('</tr>', start));
}

/** What a keyed client's registration page must not hold: a secret or the one-time warning. */
function assertNoSecret(page: ConsolePage): void {
  assert.doesNotMatch(page.html, /tcs_/);
  assert.doesNotMatch(page.html, /id="client-secret"|the only time it is shown/);
}

for (const backend of backends()) {
  describe(`Console registration of clients without a secret, on ${backend.name} (issue 29)`, () => {
    let t: TestService;
    let org: TestOrg;
    let agent: ConsoleAgent;
    let csrf: string;
    const count = async () => (await t.call('GET', '/oauth2/clients', { as: org })).body.meta.cursor_pagination.total_count as number;
    const read = async (id: string) => (await t.call('GET', `/oauth2/clients/${id}`, { as: org })).body.result;
    const withAssertion = async (key: ClientKey, id: string) =>
      oauthPost(t, '/oauth2/tokens', {
        grant_type: 'client_credentials',
        client_assertion_type: JWT_BEARER,
        client_assertion: await signAssertion(key, id, t.service.issuer, Date.now()),
      });

    before(async () => {
      t = await startTestService(backend);
      org = await t.org();
      ({ agent, csrf } = await signedInAdmin(t, org));
    });
    after(() => t.close());

    it('registers a private_key_jwt client from a pasted JWK Set: no secret, how it authenticates, listed with its method and key id, and its assertion gets a token', async () => {
      const key = await clientKey('billing-2025');
      const page = await agent.post(
        '/console/admin/clients',
        form({ client_name: 'billing', token_endpoint_auth_method: 'private_key_jwt', jwks: jwksText(key) }),
        csrf,
      );
      assert.equal(page.status, 200, page.html.slice(0, 500));
      assert.match(page.html, /<h1>Client registered<\/h1>/);
      assertNoSecret(page);
      assert.match(page.html, /<dd id="client-authentication"><code>private_key_jwt<\/code>, key <span class="auth-material">billing-2025<\/span><\/dd>/);
      assert.match(page.html, /It has no secret\. At the token endpoint it sends <code>client_assertion<\/code>, a JWT it signs/);
      const id = registeredId(page);
      assert.ok(
        page.html.includes(`-d client_id=${id} -d client_assertion_type=${JWT_BEARER} -d &quot;client_assertion=$ASSERTION&quot; ${t.url}/oauth2/tokens`),
      );

      const registered = await read(id);
      assert.equal(registered.token_endpoint_auth_method, 'private_key_jwt');
      assert.deepEqual(registered.jwks.keys, [key.jwk]);
      assert.equal((await withAssertion(key, id)).status, 200, 'an assertion signed with the pasted key is accepted');

      const list = await agent.get('/console/admin/clients');
      const row = rowOf(list, id);
      assert.match(row, /<span class="narrow-only hint">private key, opaque tokens, created /);
      assert.match(row, /<td class="wide-only"><code>private_key_jwt<\/code>, key <span class="auth-material">billing-2025<\/span><\/td>/);
      assert.doesNotMatch(row, /Rotate secret/, 'a keyed client has no secret to rotate');
      assert.match(row, /Delete<span class="visually-hidden"> billing<\/span>/);
      assert.doesNotMatch(list.html, /tcs_/);

      const own = await agent.get(`/console/admin/clients/${id}`);
      assert.equal(own.status, 200);
      assert.match(own.html, /<h1>billing<\/h1>/);
      assert.match(own.html, /<dd id="client-authentication"><code>private_key_jwt<\/code>, key <span class="auth-material">billing-2025<\/span><\/dd>/);
      assert.doesNotMatch(own.html, /Rotate secret/);
      const rotated = await agent.post(`/console/admin/clients/${id}/secret`, {}, csrf);
      assert.equal(rotated.status, 409, 'a rotation posted anyway is refused by the operation');
      assert.match(rotated.html, /this client authenticates with private_key_jwt and has no secret to rotate/);
      assert.doesNotMatch(rotated.html, /tcs_/);
    });

    it('registers a private_key_jwt client with a jwks_uri, and refuses a loopback http one outside development mode', async () => {
      const page = await agent.post(
        '/console/admin/clients',
        form({ client_name: 'published', token_endpoint_auth_method: 'private_key_jwt', jwks_uri: ' https://192.0.2.10/jwks.json ' }),
        csrf,
      );
      assert.equal(page.status, 200, page.html.slice(0, 500));
      assertNoSecret(page);
      assert.match(page.html, /<code>private_key_jwt<\/code>, keys published at <code class="auth-material">https:\/\/192\.0\.2\.10\/jwks\.json<\/code>/);
      const id = registeredId(page);
      assert.equal((await read(id)).jwks_uri, 'https://192.0.2.10/jwks.json');
      assert.match(
        rowOf(await agent.get('/console/admin/clients'), id),
        /keys published at <code class="auth-material">https:\/\/192\.0\.2\.10\/jwks\.json<\/code>/,
      );

      const before = await count();
      const loopback = await agent.post(
        '/console/admin/clients',
        form({ token_endpoint_auth_method: 'private_key_jwt', jwks_uri: 'http://127.0.0.1:9/jwks.json' }),
        csrf,
      );
      assert.equal(loopback.status, 400);
      assert.match(loopback.html, /jwks_uri: http is allowed for loopback only when the service runs with TESSERA_DEV=1; use https/);
      assert.doesNotMatch(loopback.html, /development mode/, 'the hint names no development mode this service is not in');
      assert.equal(await count(), before);
    });

    it('registers a spiffe_jwt client with its SPIFFE ID: no secret, the SVID as client assertion, listed as that ID', async () => {
      const page = await agent.post(
        '/console/admin/clients',
        form({ client_name: 'workload', token_endpoint_auth_method: 'spiffe_jwt', spiffe_id: 'spiffe://prod.example.org/billing' }),
        csrf,
      );
      assert.equal(page.status, 200, page.html.slice(0, 500));
      assertNoSecret(page);
      assert.match(page.html, /<code>spiffe_jwt<\/code>, as <code class="auth-material">spiffe:\/\/prod\.example\.org\/billing<\/code>/);
      assert.match(page.html, /It has no secret\. At the token endpoint it sends its JWT-SVID for <code>spiffe:\/\/prod\.example\.org\/billing<\/code>/);
      assert.ok(page.html.includes(`client_assertion_type=${JWT_SPIFFE} -d &quot;client_assertion=$SVID&quot;`));
      const id = registeredId(page);
      const registered = await read(id);
      assert.deepEqual([registered.token_endpoint_auth_method, registered.spiffe_id], ['spiffe_jwt', 'spiffe://prod.example.org/billing']);
      const row = rowOf(await agent.get('/console/admin/clients'), id);
      assert.match(row, /<code>spiffe_jwt<\/code>, as <code class="auth-material">spiffe:\/\/prod\.example\.org\/billing<\/code>/);
      assert.doesNotMatch(row, /Rotate secret/);
    });

    it('names the field and the rule on a bad method or material (400), keeps what may be shown, and writes nothing', async () => {
      const key = await clientKey('k1');
      const privateKey = { ...key.jwk, d: 'bm90LWEtcmVhbC1wcml2YXRlLWtleS1idXQtc2VjcmV0' };
      const before = await count();
      const cases: [Record<string, string>, RegExp, { jwksShown: boolean }][] = [
        [
          { token_endpoint_auth_method: 'private_key_jwt', jwks: '-----BEGIN PRIVATE KEY-----\nMIGH' },
          /jwks: is not JSON: paste the public keys as a JWK Set/,
          { jwksShown: false },
        ],
        [
          { token_endpoint_auth_method: 'private_key_jwt', jwks: JSON.stringify({ keys: [privateKey] }) },
          /jwks\.keys\[0\]\.d: must not be given: register the public key only/,
          { jwksShown: false },
        ],
        [{ token_endpoint_auth_method: 'private_key_jwt', jwks: '{"keys": []}' }, /jwks\.keys: must NOT have fewer than 1 items/, { jwksShown: true }],
        [
          { token_endpoint_auth_method: 'private_key_jwt' },
          /jwks: is required with token_endpoint_auth_method private_key_jwt, or jwks_uri/,
          { jwksShown: true },
        ],
        [
          { token_endpoint_auth_method: 'private_key_jwt', jwks: jwksText(key), jwks_uri: 'https://192.0.2.10/jwks.json' },
          /jwks_uri: must not be given beside jwks/,
          { jwksShown: true },
        ],
        [{ token_endpoint_auth_method: 'spiffe_jwt' }, /spiffe_id: is required with token_endpoint_auth_method spiffe_jwt/, { jwksShown: true }],
        [
          { token_endpoint_auth_method: 'spiffe_jwt', spiffe_id: 'spiffe://Prod.example.org/billing' },
          /spiffe_id: must be a workload&#39;s SPIFFE ID/,
          { jwksShown: true },
        ],
        [
          { token_endpoint_auth_method: 'spiffe_jwt', spiffe_id: 'spiffe://prod.example.org' },
          /spiffe_id: must be a workload&#39;s SPIFFE ID/,
          { jwksShown: true },
        ],
        [
          { token_endpoint_auth_method: 'client_secret_basic', spiffe_id: 'spiffe://prod.example.org/billing' },
          /spiffe_id: is not used with token_endpoint_auth_method client_secret_basic/,
          { jwksShown: true },
        ],
        [
          { token_endpoint_auth_method: 'none' },
          /token_endpoint_auth_method: must be one of client_secret_basic, client_secret_post, private_key_jwt, spiffe_jwt/,
          { jwksShown: true },
        ],
        // Regression (review of issue 29): members beside `keys` were shown back as pasted, a PEM private key among them.
        [
          {
            client_name: '',
            token_endpoint_auth_method: 'private_key_jwt',
            jwks: JSON.stringify({ keys: [], pem: '-----BEGIN PRIVATE KEY-----\nbm90LWEtcmVhbC1wcml2YXRl\n-----END PRIVATE KEY-----' }),
          },
          /client_name: must NOT have fewer than 1 characters/,
          { jwksShown: true },
        ],
        // A refusal of another field keeps a pasted private key out of the page as well.
        [
          { client_name: '', token_endpoint_auth_method: 'private_key_jwt', jwks: JSON.stringify({ keys: [privateKey] }) },
          /client_name: must NOT have fewer than 1 characters/,
          { jwksShown: false },
        ],
      ];
      for (const [fields, message, { jwksShown }] of cases) {
        const answer = await agent.post('/console/admin/clients', form({ client_name: 'typed-name', ...fields }), csrf);
        const label = JSON.stringify(fields);
        assert.equal(answer.status, 400, `${label}: ${answer.html.slice(0, 300)}`);
        assert.match(answer.html, /There is a problem/, label);
        assert.match(answer.html, message, label);
        assert.doesNotMatch(answer.html, /tcs_/, label);
        if (fields.client_name === undefined) assert.match(answer.html, /name="client_name" value="typed-name"/, label);
        if (fields.token_endpoint_auth_method !== 'none')
          assert.match(answer.html, new RegExp(`value="${fields.token_endpoint_auth_method}" checked>`), `${label}: the method chosen stays chosen`);
        const textarea = /<textarea id="auth-jwks" name="jwks"[^>]*>([^<]*)<\/textarea>/.exec(answer.html)?.[1];
        assert.equal(textarea !== '', jwksShown && (fields.jwks ?? '') !== '', `${label}: the JWK Set shown back`);
        assert.doesNotMatch(answer.html, /BEGIN PRIVATE KEY|bm90LWEtcmVhbC1wcml2YXRl/, `${label}: no private key in the page`);
        if (fields.spiffe_id) assert.ok(answer.html.includes(`name="spiffe_id" value="${fields.spiffe_id}"`), `${label}: the SPIFFE ID typed is kept`);
      }
      assert.equal(await count(), before, 'nothing was written');
    });

    it('escapes a script in the SPIFFE ID refused and in the name of a keyed client, on every page', async () => {
      const refused = await agent.post(
        '/console/admin/clients',
        form({ token_endpoint_auth_method: 'spiffe_jwt', spiffe_id: 'spiffe://prod.example.org/<script>alert(1)</script>' }),
        csrf,
      );
      assert.equal(refused.status, 400);
      assert.match(refused.html, /spiffe_id: must be a workload&#39;s SPIFFE ID/);
      assert.ok(refused.html.includes('value="spiffe://prod.example.org/&lt;script&gt;alert(1)&lt;/script&gt;"'));
      assert.doesNotMatch(refused.html, /<script>alert/);

      const name = '<script>alert(2)</script>';
      const page = await agent.post(
        '/console/admin/clients',
        form({ client_name: name, token_endpoint_auth_method: 'spiffe_jwt', spiffe_id: 'spiffe://prod.example.org/escaped' }),
        csrf,
      );
      assert.equal(page.status, 200);
      const id = registeredId(page);
      for (const shown of [page, await agent.get('/console/admin/clients'), await agent.get(`/console/admin/clients/${id}`)]) {
        assert.doesNotMatch(shown.html, /<script>alert/);
        assert.ok(shown.html.includes('&lt;script&gt;alert(2)&lt;/script&gt;'));
      }
    });

    it("switches a client's method on its page: to SPIFFE and to a key (the secret dropped), and back to a new secret shown once", async () => {
      const made = await agent.post('/console/admin/clients', form({ client_name: 'switching' }), csrf);
      const id = registeredId(made);
      const secret = /id="client-secret">(tcs_[A-Za-z0-9_-]+)</.exec(made.html)![1]!;
      const own = await agent.get(`/console/admin/clients/${id}`);
      assert.match(own.html, /<dd id="client-authentication"><code>client_secret_basic<\/code><\/dd>/);
      assert.match(own.html, /id="switch-client_secret_basic" name="token_endpoint_auth_method" value="client_secret_basic" checked>/);
      assert.match(own.html, /Rotate secret/);

      const toSpiffe = await agent.post(
        `/console/admin/clients/${id}/authentication`,
        switchForm({ token_endpoint_auth_method: 'spiffe_jwt', spiffe_id: 'spiffe://prod.example.org/switched' }),
        csrf,
      );
      assert.equal(toSpiffe.status, 303);
      const switched = await agent.follow(toSpiffe);
      assert.match(switched.html, /Authentication changed: what the client used before no longer works\./);
      assert.match(switched.html, /<code>spiffe_jwt<\/code>, as <code class="auth-material">spiffe:\/\/prod\.example\.org\/switched<\/code>/);
      assert.match(switched.html, /name="spiffe_id" value="spiffe:\/\/prod\.example\.org\/switched"/, 'the form starts from what the client uses');
      assert.doesNotMatch(switched.html, /Rotate secret/);
      assert.equal((await token(t, { grant_type: 'client_credentials' }, { id, secret })).status, 401, 'the secret is dropped');

      const bad = await agent.post(
        `/console/admin/clients/${id}/authentication`,
        switchForm({ token_endpoint_auth_method: 'private_key_jwt', jwks: '{"keys": [' }),
        csrf,
      );
      assert.equal(bad.status, 400);
      assert.match(bad.html, /jwks: is not JSON/);
      assert.equal((await read(id)).spiffe_id, 'spiffe://prod.example.org/switched', 'a refused switch changes nothing');

      const key = await clientKey('k2');
      const toKey = await agent.post(
        `/console/admin/clients/${id}/authentication`,
        switchForm({ token_endpoint_auth_method: 'private_key_jwt', jwks: jwksText(key) }),
        csrf,
      );
      assert.equal(toKey.status, 303);
      assert.equal((await withAssertion(key, id)).status, 200);
      assert.equal((await read(id)).spiffe_id, undefined, 'the SPIFFE ID is gone');

      const back = await agent.post(`/console/admin/clients/${id}/authentication`, switchForm({ token_endpoint_auth_method: 'client_secret_post' }), csrf);
      assert.equal(back.status, 200);
      assert.match(back.html, /<h1>Client secret issued<\/h1>/);
      assert.match(back.html, /the only time it is shown/);
      const fresh = /id="client-secret">(tcs_[A-Za-z0-9_-]+)</.exec(back.html)![1]!;
      assert.notEqual(fresh, secret);
      assert.equal((await token(t, { grant_type: 'client_credentials' }, { id, secret: fresh })).status, 200);
      assert.equal((await withAssertion(key, id)).status, 401, 'the key is dropped');

      const toBasic = await agent.post(`/console/admin/clients/${id}/authentication`, switchForm({ token_endpoint_auth_method: 'client_secret_basic' }), csrf);
      assert.equal(toBasic.status, 303);
      assert.match((await agent.follow(toBasic)).html, /the client keeps its secret, which both secret methods accept/);
      assert.equal((await token(t, { grant_type: 'client_credentials' }, { id, secret: fresh })).status, 200);

      // Each switch is audited by the operation, naming the console person as the operator.
      const events = (await t.call('GET', '/audit/events?type=client.authentication_changed&limit=100', { as: org })).body.result as {
        data: Record<string, unknown>;
      }[];
      assert.deepEqual(
        events.filter((event) => event.data.client_id === id).map((event) => [event.data.from, event.data.token_endpoint_auth_method, event.data.operator]),
        [
          ['client_secret_basic', 'spiffe_jwt', 'console'],
          ['spiffe_jwt', 'private_key_jwt', 'console'],
          ['private_key_jwt', 'client_secret_post', 'console'],
          ['client_secret_post', 'client_secret_basic', 'console'],
        ],
      );
    });
  });
}

describe('Console clients without a secret in development mode: a loopback jwks_uri and a SPIFFE client, used at the token endpoint (issue 29)', () => {
  const backend = backends()[0]!;
  let t: TestService;
  let org: TestOrg;
  let agent: ConsoleAgent;
  let csrf: string;

  before(async () => {
    t = await startTestService(backend, { TESSERA_DEV: '1' });
    org = await t.org();
    ({ agent, csrf } = await signedInAdmin(t, org));
  });
  after(() => t.close());

  it('registers a jwks_uri on loopback http, whose published key then signs a good assertion', async () => {
    const key = await clientKey('published-1');
    const published = await startClientJwksServer([key.jwk]);
    try {
      assert.match((await agent.get('/console/admin/clients')).html, /This service runs in development mode: http on a loopback address is accepted too\./);
      const page = await agent.post('/console/admin/clients', form({ token_endpoint_auth_method: 'private_key_jwt', jwks_uri: published.url }), csrf);
      assert.equal(page.status, 200, page.html.slice(0, 500));
      const id = registeredId(page);
      const response = await oauthPost(t, '/oauth2/tokens', {
        grant_type: 'client_credentials',
        client_assertion_type: JWT_BEARER,
        client_assertion: await signAssertion(key, id, t.service.issuer, Date.now()),
      });
      assert.equal(response.status, 200, JSON.stringify(response.body));
      assert.equal(published.fetches, 1);
    } finally {
      await published.close();
    }
  });

  it('registers a spiffe_jwt client whose JWT-SVID, of a trusted domain, then gets a token', async () => {
    const trustDomain = await startJwksServer();
    try {
      const trusted = await t.call('PATCH', '/organizations/config', {
        as: org,
        body: { svid_jwks_urls: { 'example.org': trustDomain.url }, allowed_spiffe_ids: [] },
      });
      assert.equal(trusted.status, 200, JSON.stringify(trusted.body));
      const page = await agent.post(
        '/console/admin/clients',
        form({ token_endpoint_auth_method: 'spiffe_jwt', spiffe_id: 'spiffe://example.org/billing' }),
        csrf,
      );
      assert.equal(page.status, 200, page.html.slice(0, 500));
      const id = registeredId(page);
      const svid = await trustDomain.svid({ sub: 'spiffe://example.org/billing', aud: [t.service.issuer] });
      const response = await oauthPost(t, '/oauth2/tokens', {
        grant_type: 'client_credentials',
        client_id: id,
        client_assertion_type: JWT_SPIFFE,
        client_assertion: svid,
      });
      assert.equal(response.status, 200, JSON.stringify(response.body));
    } finally {
      await trustDomain.close();
    }
  });
});
