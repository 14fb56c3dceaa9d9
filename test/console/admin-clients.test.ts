import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { backends } from '../helpers/backends.ts';
import { ConsoleAgent, type ConsolePage, consolePerson, signedInAdmin, signInWithPassword } from '../helpers/console.ts';
import { EXCHANGE, token } from '../helpers/oauth.ts';
import { startTestService, type TestOrg, type TestService } from '../helpers/service.ts';

/** The one-time secret page's client id and secret. */
function shown(page: ConsolePage): { id: string; secret: string } {
  const id = /<code id="client-id">(cli_[0-9a-z]+)<\/code>/.exec(page.html)?.[1];
  const secret = /<code class="secret" id="client-secret">(tcs_[A-Za-z0-9_-]+)<\/code>/.exec(page.html)?.[1];
  assert.ok(id && secret, `a client id and secret on the page: ${page.html.slice(0, 500)}`);
  return { id, secret };
}

const form = (fields: Record<string, string | string[]> = {}) => ({
  client_name: 'billing',
  grant_types: ['client_credentials'],
  scopes: '',
  access_token_duration: '',
  access_token_format: 'opaque',
  ...fields,
});

for (const backend of backends()) {
  describe(`Console administration of OAuth clients, on ${backend.name}`, () => {
    let t: TestService;
    let org: TestOrg;
    let agent: ConsoleAgent;
    let csrf: string;
    const count = async () => (await t.call('GET', '/oauth2/clients', { as: org })).body.meta.cursor_pagination.total_count as number;
    const register = async (fields: Record<string, string | string[]> = {}) => {
      const page = await agent.post('/console/admin/clients', form(fields), csrf);
      assert.equal(page.status, 200, page.html.slice(0, 500));
      return shown(page);
    };

    before(async () => {
      t = await startTestService(backend);
      org = await t.org();
      ({ agent, csrf } = await signedInAdmin(t, org));
    });
    after(() => t.close());

    it('registers a client from the form, shows its secret once with a curl, and the secret works', async () => {
      const page = await agent.post(
        '/console/admin/clients',
        form({
          client_name: 'gateway',
          grant_types: ['client_credentials', EXCHANGE],
          scopes: ' orders:read  orders:write ',
          access_token_duration: '600',
          access_token_format: 'jwt',
        }),
        csrf,
      );
      assert.equal(page.status, 200);
      assert.match(page.html, /<h1>Client registered<\/h1>/);
      assert.match(page.html, /the only time it is shown/);
      const client = shown(page);
      assert.ok(page.html.includes(`curl -u &#39;${client.id}:${client.secret}&#39; -d grant_type=client_credentials ${t.url}/oauth2/tokens`));
      const read = (await t.call('GET', `/oauth2/clients/${client.id}`, { as: org })).body.result;
      assert.deepEqual(
        [read.client_name, read.grant_types, read.scopes, read.access_token_duration, read.access_token_format],
        ['gateway', ['client_credentials', EXCHANGE], ['orders:read', 'orders:write'], 600, 'jwt'],
      );
      assert.equal((await token(t, { grant_type: 'client_credentials' }, client)).status, 200);
      const list = await agent.get('/console/admin/clients');
      assert.equal(list.status, 200);
      assert.match(list.html, new RegExp(`<a href="/console/admin/clients/${client.id}">gateway</a><br><code class="long-id">${client.id}</code>`));
      assert.match(
        list.html,
        /Client credentials, Token exchange<\/td><td class="wide-only"><code>client_secret_basic<\/code><\/td><td class="wide-only">jwt<\/td>/,
      );
      assert.ok(!list.html.includes(client.secret), 'the list never shows the secret again');
    });

    it("applies the API's defaults to the fields left empty, and leaves the curl out without client credentials", async () => {
      const page = await agent.post('/console/admin/clients', form({ client_name: 'exchanger', grant_types: [EXCHANGE], access_token_format: '' }), csrf);
      assert.equal(page.status, 200);
      assert.doesNotMatch(page.html, /curl/);
      const read = (await t.call('GET', `/oauth2/clients/${shown(page).id}`, { as: org })).body.result;
      assert.deepEqual([read.scopes, read.access_token_duration, read.access_token_format], [[], 3600, 'opaque']);
    });

    it('names the field and the rule on bad input (400), keeps what was typed and writes nothing', async () => {
      const before = await count();
      const cases: [Record<string, string | string[]>, RegExp][] = [
        [{ client_name: '  ' }, /client_name: must NOT have fewer than 1 characters/],
        [{ grant_types: [] }, /grant_types: must NOT have fewer than 1 items/],
        [{ grant_types: ['password'] }, /grant_types\[0\]: must be one of client_credentials, urn:ietf:params:oauth:grant-type:token-exchange/],
        [{ scopes: 'orders:read or"ders' }, /scopes\[1\]: must match/],
        [{ access_token_duration: '10' }, /access_token_duration: must be &gt;= 60/],
        [{ access_token_duration: '90.5' }, /access_token_duration: must be an integer/],
        [{ access_token_duration: 'an hour' }, /access_token_duration: must be an integer/],
        [{ access_token_format: 'paseto' }, /access_token_format: must be one of opaque, jwt/],
      ];
      for (const [fields, message] of cases) {
        const answer = await agent.post('/console/admin/clients', form({ client_name: 'typed-name', ...fields }), csrf);
        assert.equal(answer.status, 400, `${JSON.stringify(fields)}: ${answer.html.slice(0, 300)}`);
        assert.match(answer.html, message);
        assert.match(answer.html, /There is a problem/);
        assert.doesNotMatch(answer.html, /tcs_/);
        if (!('client_name' in fields)) assert.match(answer.html, /name="client_name" value="typed-name"/);
      }
      assert.equal(await count(), before, 'nothing was written');
    });

    it('rotates the secret: the new one is shown once and works, the old one is refused (401)', async () => {
      const client = await register({ client_name: 'rotating' });
      const rotated = await agent.post(`/console/admin/clients/${client.id}/secret`, {}, csrf);
      assert.equal(rotated.status, 200);
      assert.match(rotated.html, /<h1>Client secret rotated<\/h1>/);
      const fresh = shown(rotated);
      assert.equal(fresh.id, client.id);
      assert.notEqual(fresh.secret, client.secret);
      assert.equal((await token(t, { grant_type: 'client_credentials' }, fresh)).status, 200);
      assert.equal((await token(t, { grant_type: 'client_credentials' }, client)).status, 401);
      const list = await agent.get('/console/admin/clients');
      assert.ok(!list.html.includes(fresh.secret), 'a reload shows no secret');
      assert.match(list.html, new RegExp(`action="/console/admin/clients/${client.id}/secret"[^>]*\\s+data-confirm="Rotate the secret of rotating\\?`));
    });

    it('deletes a client after a confirmation: gone from the API, and its secret refused', async () => {
      const client = await register({ client_name: 'doomed' });
      const list = await agent.get('/console/admin/clients');
      assert.match(list.html, /data-confirm="Delete the client doomed\?/);
      const answer = await agent.post(`/console/admin/clients/${client.id}/delete`, {}, csrf);
      assert.equal(answer.status, 303);
      const page = await agent.follow(answer);
      assert.match(page.html, /Client deleted; its tokens are revoked\./);
      assert.equal((await t.call('GET', `/oauth2/clients/${client.id}`, { as: org })).status, 404);
      assert.equal((await token(t, { grant_type: 'client_credentials' }, client)).status, 401);
      assert.equal((await agent.post(`/console/admin/clients/${client.id}/delete`, {}, csrf)).status, 404);
      assert.equal((await agent.post(`/console/admin/clients/${client.id}/secret`, {}, csrf)).status, 404);
      assert.equal(
        (await agent.post(`/console/admin/clients/${client.id}/authentication`, { token_endpoint_auth_method: 'client_secret_post' }, csrf)).status,
        404,
      );
      assert.equal((await agent.get(`/console/admin/clients/${client.id}`)).status, 404);
    });

    it('refuses a form without its CSRF token (403) and changes nothing', async () => {
      const client = await register({ client_name: 'guarded' });
      const before = await count();
      for (const path of [
        '/console/admin/clients',
        ...['secret', 'authentication', 'delete'].map((action) => `/console/admin/clients/${client.id}/${action}`),
      ]) {
        const answer = await agent.post(
          path,
          { ...form(), token_endpoint_auth_method: 'spiffe_jwt', spiffe_id: 'spiffe://prod.example.org/x', _csrf: null },
          '',
        );
        assert.equal(answer.status, 403, path);
        assert.match(answer.html, /_csrf: is missing or does not belong to this browser/);
        assert.doesNotMatch(answer.html, /tcs_/);
      }
      assert.equal(await count(), before);
      assert.equal((await token(t, { grant_type: 'client_credentials' }, client)).status, 200, 'the secret was not rotated or dropped, the client not deleted');
    });

    it('answers 403 to a person without the admin role, on every page, and changes nothing', async () => {
      const client = await register({ client_name: 'untouchable' });
      const verifier = new ConsoleAgent(t.url);
      const token_ = (await signInWithPassword(verifier, org.orgId, await consolePerson(t, org, { roles: ['verifier'] }))).csrf;
      const before = await count();
      assert.equal((await verifier.get('/console/admin/clients')).status, 403);
      assert.equal((await verifier.get(`/console/admin/clients/${client.id}`)).status, 403);
      for (const path of [
        '/console/admin/clients',
        ...['secret', 'authentication', 'delete'].map((action) => `/console/admin/clients/${client.id}/${action}`),
      ]) {
        const answer = await verifier.post(path, { ...form(), token_endpoint_auth_method: 'spiffe_jwt', spiffe_id: 'spiffe://prod.example.org/x' }, token_);
        assert.equal(answer.status, 403, path);
        assert.doesNotMatch(answer.html, /tcs_/);
      }
      assert.equal(await count(), before);
      assert.equal((await token(t, { grant_type: 'client_credentials' }, client)).status, 200);
    });

    it('pages through the clients with Previous and Next', async () => {
      const own = await t.org();
      for (let i = 0; i < 26; i++) {
        assert.equal((await t.call('POST', '/oauth2/clients', { as: own, body: { client_name: `c${i}`, grant_types: ['client_credentials'] } })).status, 201);
      }
      const browser = new ConsoleAgent(t.url);
      await signInWithPassword(browser, own.orgId, await consolePerson(t, own, { roles: ['admin'] }));
      const first = await browser.get('/console/admin/clients');
      assert.match(first.html, /26 clients in all\./);
      const next = /<a rel="next" href="([^"]+)">Next page<\/a>/.exec(first.html)?.[1];
      assert.ok(next);
      const second = await browser.get(next.replace(/&amp;/g, '&'));
      assert.equal(second.status, 200);
      assert.match(second.html, /<th scope="row"><a href="\/console\/admin\/clients\/cli_[0-9a-z]+">c25<\/a><br>/);
      assert.match(second.html, /rel="prev"/);
    });
  });
}
