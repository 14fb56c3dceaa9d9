import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { backends } from '../helpers/backends.ts';
import { ConsoleAgent, type ConsolePerson, consolePerson, signInWithPassword } from '../helpers/console.ts';
import { startTestService, type TestOrg, type TestService } from '../helpers/service.ts';
import { scimCall } from '../scim/scim-helpers.ts';

const tokenOn = (html: string) => /<code class="secret" id="scim-token">(tscim_[^<]+)<\/code>/.exec(html)?.[1];
const user = (n: number) => ({
  schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
  userName: `user${String(n).padStart(2, '0')}@example.com`,
  displayName: `User <${n}>`,
  emails: [{ type: 'work', value: `user${n}@example.com` }],
  active: n % 2 === 0,
});

for (const backend of backends()) {
  describe(`Console administration of identity connections, on ${backend.name}`, () => {
    let t: TestService;
    let org: TestOrg;
    let admin: ConsolePerson;
    let agent: ConsoleAgent;
    let csrf: string;
    const count = async () => (await t.call('GET', '/organizations/connections?limit=100', { as: org })).body.result.length as number;

    before(async () => {
      // Development mode: a scim_pull base URL may name loopback.
      t = await startTestService(backend, { TESSERA_DEV: '1' });
      org = await t.org();
      admin = await consolePerson(t, org, { roles: ['admin'] });
      agent = new ConsoleAgent(t.url);
      csrf = (await signInWithPassword(agent, org.orgId, admin)).csrf;
    });
    after(() => t.close());

    it('creates a scim connection whose token is shown once, and works at /scim/v2', async () => {
      const created = await agent.post('/console/admin/connections', { name: 'Entra', type: 'scim', base_url: '', bearer_token: '' }, csrf);
      assert.equal(created.status, 200, created.html.slice(0, 500));
      assert.match(created.html, /<h1>Connection created<\/h1>/);
      assert.match(created.html, new RegExp(`<code>${t.url}/scim/v2</code>`));
      const token = tokenOn(created.html);
      assert.ok(token, 'the token is on the page');
      assert.equal((await scimCall(t.url, token, 'GET', '/Users')).status, 200);
      const id = (await t.call('GET', '/organizations/connections?limit=100', { as: org })).body.result.find((c: { name: string }) => c.name === 'Entra').id;
      for (const page of [await agent.get('/console/admin/connections'), await agent.get(`/console/admin/connections/${id}`)]) {
        assert.equal(page.status, 200);
        assert.ok(!page.html.includes(token), 'never shown again');
      }
      assert.match((await agent.get('/console/admin/connections')).html, new RegExp(`href="/console/admin/connections/${id}">Entra</a>`));
    });

    it('rotates the SCIM token (confirmed by the page): the new one shown once works, the old one is refused', async () => {
      const { id, scim_token: old } = (await t.call('POST', '/organizations/connections', { as: org, body: { name: 'rotating', type: 'scim' } })).body.result;
      const page = await agent.get(`/console/admin/connections/${id}`);
      assert.match(page.html, /action="\/console\/admin\/connections\/con_[0-9a-z]+\/scim-token" class="stack" data-confirm="[^"]+"/);
      const rotated = await agent.post(`/console/admin/connections/${id}/scim-token`, {}, csrf);
      assert.equal(rotated.status, 200);
      const token = tokenOn(rotated.html)!;
      assert.notEqual(token, old);
      assert.equal((await scimCall(t.url, old, 'GET', '/Users')).status, 401);
      assert.equal((await scimCall(t.url, token, 'GET', '/Users')).status, 200);
      assert.ok(!(await agent.get(`/console/admin/connections/${id}`)).html.includes(token));
      const events = await t.call('GET', '/audit/events?type=connection.scim_token_rotated', { as: org });
      assert.ok(
        events.body.result.some((e: { data: { connection_id: string } }) => e.data.connection_id === id),
        'audited as through the API',
      );
    });

    it('creates a scim_pull connection, never showing its bearer token back, and says its identities live in the provider', async () => {
      const secret = 'provider-bearer-token-value';
      const created = await agent.post(
        '/console/admin/connections',
        { name: 'Okta pull', type: 'scim_pull', base_url: 'http://127.0.0.1:9/scim/v2/', bearer_token: secret },
        csrf,
      );
      assert.equal(created.status, 303, created.html.slice(0, 500));
      const page = await agent.follow(created);
      assert.match(page.html, /Connection created\./);
      assert.match(page.html, /<code>http:\/\/127\.0\.0\.1:9\/scim\/v2<\/code>/);
      assert.match(page.html, /identities of a scim_pull connection live in the provider/);
      assert.doesNotMatch(page.html, /Rotate SCIM token/);
      for (const html of [created.html, page.html, (await agent.get('/console/admin/connections')).html]) assert.ok(!html.includes(secret));
    });

    it('names the field and the rule on bad input (400) or a taken name (409), keeps what was typed and writes nothing', async () => {
      const before = await count();
      const cases: [Record<string, string>, number, RegExp][] = [
        [{ name: '', type: 'scim' }, 400, /name: must NOT have fewer than 1 characters/],
        [{ name: ' padded', type: 'scim' }, 400, /name: must match/],
        [{ name: 'No type' }, 400, /type: must be one of scim, scim_pull/],
        [{ name: 'Pull', type: 'scim_pull', bearer_token: 'x' }, 400, /base_url: is required for type scim_pull/],
        [{ name: 'Pull', type: 'scim_pull', base_url: 'http://example.com/scim', bearer_token: 'x' }, 400, /base_url: must use https/],
        [{ name: 'Push', type: 'scim', base_url: 'https://example.com/scim' }, 400, /base_url: is only for type scim_pull/],
        [{ name: 'Entra', type: 'scim' }, 409, /name: this organisation already has a connection with this name/],
      ];
      for (const [fields, status, message] of cases) {
        const answer = await agent.post('/console/admin/connections', fields, csrf);
        assert.equal(answer.status, status, `${JSON.stringify(fields)}: ${answer.html.slice(0, 300)}`);
        assert.match(answer.html, message);
        assert.match(answer.html, new RegExp(`id="name" name="name" value="${fields.name}"`));
        assert.equal(tokenOn(answer.html), undefined);
      }
      const typed = await agent.post('/console/admin/connections', { name: 'Pull', type: 'scim_pull', base_url: 'nope', bearer_token: 'typed-secret' }, csrf);
      assert.equal(typed.status, 400);
      assert.ok(!typed.html.includes('typed-secret'), 'a bearer token typed is never written back into the page');
      assert.equal(await count(), before);
    });

    it("lists a scim connection's identities a page at a time, and refuses a bad page number naming it", async () => {
      const created = (await t.call('POST', '/organizations/connections', { as: org, body: { name: 'Big directory', type: 'scim' } })).body.result;
      for (let n = 0; n < 27; n++) assert.equal((await scimCall(t.url, created.scim_token, 'POST', '/Users', user(n))).status, 201);
      const first = await agent.get(`/console/admin/connections/${created.id}`);
      assert.match(first.html, /27 identities; page 1 of 2\./);
      assert.equal([...first.html.matchAll(/<tr><th scope="row">user/g)].length, 25);
      assert.match(first.html, /<th scope="row">user00@example\.com<\/th><td>User &lt;0&gt;<\/td><td>user0@example\.com<\/td><td>yes<\/td>/);
      assert.match(first.html, /<td>User &lt;1&gt;<\/td><td>user1@example\.com<\/td><td>no<\/td>/);
      const next = /<a rel="next" href="([^"]+)">Next page<\/a>/.exec(first.html)![1]!;
      const second = await agent.get(next.replace(/&amp;/g, '&'));
      assert.match(second.html, /page 2 of 2\./);
      assert.equal([...second.html.matchAll(/<tr><th scope="row">user/g)].length, 2);
      assert.match(second.html, /rel="prev"/);
      const bad = await agent.get(`/console/admin/connections/${created.id}?page=0`);
      assert.equal(bad.status, 400);
      assert.match(bad.html, /query\.page: must be a whole number/);
    });

    it('deletes a connection (confirmed by the page) with its identities; its token stops working', async () => {
      const { id, scim_token } = (await t.call('POST', '/organizations/connections', { as: org, body: { name: 'doomed', type: 'scim' } })).body.result;
      const page = await agent.get(`/console/admin/connections/${id}`);
      assert.match(page.html, /action="\/console\/admin\/connections\/con_[0-9a-z]+\/delete" class="stack" data-confirm="[^"]+"/);
      const deleted = await agent.post(`/console/admin/connections/${id}/delete`, {}, csrf);
      assert.equal(deleted.status, 303);
      assert.match((await agent.follow(deleted)).html, /Connection deleted, with its identities\./);
      assert.equal((await t.call('GET', `/organizations/connections/${id}`, { as: org })).status, 404);
      assert.equal((await scimCall(t.url, scim_token, 'GET', '/Users')).status, 401);
      assert.equal((await agent.get(`/console/admin/connections/${id}`)).status, 404);
    });

    it('refuses a form without its CSRF token (403) and changes nothing', async () => {
      const { id, scim_token } = (await t.call('POST', '/organizations/connections', { as: org, body: { name: 'guarded', type: 'scim' } })).body.result;
      const before = await count();
      const create = await agent.post('/console/admin/connections', { name: 'forged', type: 'scim', _csrf: null }, csrf);
      const rotate = await agent.post(`/console/admin/connections/${id}/scim-token`, { _csrf: null }, csrf);
      const remove = await agent.post(`/console/admin/connections/${id}/delete`, { _csrf: null }, csrf);
      for (const answer of [create, rotate, remove]) {
        assert.equal(answer.status, 403);
        assert.equal(tokenOn(answer.html), undefined);
      }
      assert.equal(await count(), before);
      assert.equal((await scimCall(t.url, scim_token, 'GET', '/Users')).status, 200, 'the token was not rotated');
    });

    it('is for administrators only: a verifier gets 403 on every page and form', async () => {
      const { id, scim_token } = (await t.call('POST', '/organizations/connections', { as: org, body: { name: 'private', type: 'scim' } })).body.result;
      const verifier = await consolePerson(t, org, { roles: ['verifier'] });
      const theirs = new ConsoleAgent(t.url);
      const page = await signInWithPassword(theirs, org.orgId, verifier);
      for (const path of ['/console/admin/connections', `/console/admin/connections/${id}`]) assert.equal((await theirs.get(path)).status, 403, path);
      const before = await count();
      for (const [path, fields] of [
        ['/console/admin/connections', { name: 'sneaky', type: 'scim' }],
        [`/console/admin/connections/${id}/scim-token`, {}],
        [`/console/admin/connections/${id}/delete`, {}],
      ] as const) {
        const answer = await theirs.post(path, fields, page.csrf);
        assert.equal(answer.status, 403, path);
        assert.equal(tokenOn(answer.html), undefined);
      }
      assert.equal(await count(), before);
      assert.equal((await scimCall(t.url, scim_token, 'GET', '/Users')).status, 200);
    });
  });
}
