import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { backends } from '../helpers/backends.ts';
import { ConsoleAgent, type ConsolePage, consolePerson, signInWithPassword } from '../helpers/console.ts';
import { startTestService, type TestOrg, type TestService } from '../helpers/service.ts';

const shownSecret = (page: ConsolePage): string => {
  const secret = /<code class="secret" id="api-key-secret">(ts[ki]_[A-Za-z0-9_-]+)<\/code>/.exec(page.html)?.[1];
  assert.ok(secret, `a key on the page: ${page.html.slice(0, 500)}`);
  return secret;
};

for (const backend of backends()) {
  describe(`Console administration of API keys, on ${backend.name}`, () => {
    let t: TestService;
    let org: TestOrg;
    let agent: ConsoleAgent;
    let csrf: string;
    const keys = async (of: TestOrg = org) =>
      (await t.call('GET', '/organizations/api-keys?limit=100', { as: of })).body.result as { id: string; name: string; kind: string }[];
    const keyNamed = async (name: string, of: TestOrg = org) => (await keys(of)).find((k) => k.name === name)!;
    const persons = (of: TestOrg, apiKey: string) => t.call('GET', '/persons', { as: { 'service-orgid': of.orgId, 'service-api-key': apiKey } });
    const signedInAdmin = async (of: TestOrg) => {
      const browser = new ConsoleAgent(t.url);
      const page = await signInWithPassword(browser, of.orgId, await consolePerson(t, of, { roles: ['admin'] }));
      return { browser, token: page.csrf };
    };

    before(async () => {
      t = await startTestService(backend);
      org = await t.org();
      ({ browser: agent, token: csrf } = await signedInAdmin(org));
    });
    after(() => t.close());

    it('creates keys of both kinds, shows each secret once, and the admin key works', async () => {
      const created = await agent.post('/console/admin/api-keys', { name: 'ops robot', kind: 'admin' }, csrf);
      assert.equal(created.status, 200);
      assert.match(created.html, /<h1>API key created<\/h1>/);
      assert.match(created.html, /the only time it is shown/);
      assert.ok(created.html.includes(`<code>${org.orgId}</code>`), 'the organisation id to send with it');
      const secret = shownSecret(created);
      assert.match(secret, /^tsk_/);
      assert.equal((await persons(org, secret)).status, 200);
      const integration = shownSecret(await agent.post('/console/admin/api-keys', { name: 'crm sync', kind: 'integration' }, csrf));
      assert.match(integration, /^tsi_/);
      assert.equal((await persons(org, integration)).status, 403, 'an integration key stays one');
      const list = await agent.get('/console/admin/api-keys');
      assert.equal(list.status, 200);
      assert.match(list.html, /<th scope="row">ops robot<\/th><td>admin<\/td>/);
      assert.match(list.html, /<th scope="row">crm sync<\/th><td>integration<\/td>/);
      assert.ok(!list.html.includes(secret) && !list.html.includes(integration), 'a reload shows no secret');
      assert.match(list.html, /Rotate replaces a key by a new one with the same name and kind/);
    });

    it('names the field and the rule on bad input (400) or a taken name (409), and writes nothing', async () => {
      const before = (await keys()).length;
      const cases: [Record<string, string>, number, RegExp][] = [
        [{ name: ' ', kind: 'admin' }, 400, /name: must NOT have fewer than 1 characters/],
        [{ name: 'x'.repeat(101), kind: 'admin' }, 400, /name: must NOT have more than 100 characters/],
        [{ name: 'typed', kind: 'root' }, 400, /kind: must be one of admin, integration/],
        [{ name: 'typed' }, 400, /kind: must be one of admin, integration/],
        [{ name: 'first-admin-key', kind: 'admin' }, 409, /name: this organisation already has an API key with this name/],
      ];
      for (const [fields, status, message] of cases) {
        const answer = await agent.post('/console/admin/api-keys', fields, csrf);
        assert.equal(answer.status, status, `${JSON.stringify(fields)}: ${answer.html.slice(0, 300)}`);
        assert.match(answer.html, message);
        assert.doesNotMatch(answer.html, /ts[ki]_/);
        if (fields.name === 'typed') assert.match(answer.html, /name="name" value="typed"/);
      }
      assert.equal((await keys()).length, before, 'nothing was written');
    });

    it('rotates a key: same name and kind, the new secret shown once works, the old one is refused (401)', async () => {
      const old = shownSecret(await agent.post('/console/admin/api-keys', { name: 'deploy bot', kind: 'admin' }, csrf));
      const key = await keyNamed('deploy bot');
      const list = await agent.get('/console/admin/api-keys');
      assert.match(list.html, new RegExp(`action="/console/admin/api-keys/${key.id}/rotate"[^>]*\\s+data-confirm="Rotate the key deploy bot\\?`));
      const rotated = await agent.post(`/console/admin/api-keys/${key.id}/rotate`, {}, csrf);
      assert.equal(rotated.status, 200);
      assert.match(rotated.html, /<h1>API key rotated<\/h1>/);
      const fresh = shownSecret(rotated);
      assert.equal((await persons(org, fresh)).status, 200);
      assert.equal((await persons(org, old)).status, 401);
      const after = await keyNamed('deploy bot');
      assert.equal(after.kind, 'admin');
      assert.notEqual(after.id, key.id);
      assert.ok(!(await agent.get('/console/admin/api-keys')).html.includes(fresh), 'a reload shows no secret');
      assert.equal((await agent.post(`/console/admin/api-keys/${key.id}/rotate`, {}, csrf)).status, 404, 'the old key is gone');
    });

    it('revokes a key after a confirmation: it is refused from then on', async () => {
      const secret = shownSecret(await agent.post('/console/admin/api-keys', { name: 'short-lived', kind: 'admin' }, csrf));
      const key = await keyNamed('short-lived');
      assert.match((await agent.get('/console/admin/api-keys')).html, /data-confirm="Revoke the key short-lived\?/);
      const answer = await agent.post(`/console/admin/api-keys/${key.id}/revoke`, {}, csrf);
      assert.equal(answer.status, 303);
      assert.match((await agent.follow(answer)).html, /Key revoked: it no longer works\./);
      assert.equal((await persons(org, secret)).status, 401);
      assert.equal((await agent.post(`/console/admin/api-keys/${key.id}/revoke`, {}, csrf)).status, 404);
    });

    it("refuses to revoke the organisation's last admin key (409), which can still be rotated", async () => {
      const own = await t.org();
      const { browser, token } = await signedInAdmin(own);
      shownSecret(await browser.post('/console/admin/api-keys', { name: 'sync', kind: 'integration' }, token));
      const only = await keyNamed('first-admin-key', own);
      const sync = await keyNamed('sync', own);
      const refused = await browser.post(`/console/admin/api-keys/${only.id}/revoke`, {}, token);
      assert.equal(refused.status, 409);
      assert.match(refused.html, /key: is the organisation&#39;s last admin key; create another admin key before revoking this one/);
      assert.equal((await persons(own, own.apiKey)).status, 200, 'the key still works');
      assert.equal((await browser.post(`/console/admin/api-keys/${sync.id}/revoke`, {}, token)).status, 303, 'integration keys may all go');
      const fresh = shownSecret(await browser.post(`/console/admin/api-keys/${only.id}/rotate`, {}, token));
      assert.equal((await persons(own, fresh)).status, 200);
      assert.equal((await persons(own, own.apiKey)).status, 401);
    });

    it('keeps an admin key when two are revoked at once', async () => {
      const own = await t.org();
      const { browser, token } = await signedInAdmin(own);
      shownSecret(await browser.post('/console/admin/api-keys', { name: 'second', kind: 'admin' }, token));
      const ids = (await keys(own)).map((k) => k.id);
      const answers = await Promise.all(ids.map((id) => browser.post(`/console/admin/api-keys/${id}/revoke`, {}, token)));
      assert.deepEqual(answers.map((a) => a.status).sort(), [303, 409]);
      const left = await t.service.store.listApiKeys(own.orgId, { position: { kind: 'first' }, limit: 10 });
      assert.equal(left.items.filter((k) => k.kind === 'admin').length, 1);
    });

    it('refuses a form without its CSRF token (403) and changes nothing', async () => {
      const secret = shownSecret(await agent.post('/console/admin/api-keys', { name: 'guarded', kind: 'admin' }, csrf));
      const key = await keyNamed('guarded');
      const before = await keys();
      for (const path of ['/console/admin/api-keys', `/console/admin/api-keys/${key.id}/rotate`, `/console/admin/api-keys/${key.id}/revoke`]) {
        const answer = await agent.post(path, { name: 'sneaky', kind: 'admin', _csrf: null }, '');
        assert.equal(answer.status, 403, path);
        assert.match(answer.html, /_csrf: is missing or does not belong to this browser/);
        assert.doesNotMatch(answer.html, /ts[ki]_/);
      }
      assert.deepEqual(await keys(), before);
      assert.equal((await persons(org, secret)).status, 200);
    });

    it('answers 403 to a person without the admin role, on every page, and changes nothing', async () => {
      const secret = shownSecret(await agent.post('/console/admin/api-keys', { name: 'untouchable', kind: 'admin' }, csrf));
      const key = await keyNamed('untouchable');
      const verifier = new ConsoleAgent(t.url);
      const token = (await signInWithPassword(verifier, org.orgId, await consolePerson(t, org, { roles: ['verifier'] }))).csrf;
      const before = await keys();
      assert.equal((await verifier.get('/console/admin/api-keys')).status, 403);
      for (const path of ['/console/admin/api-keys', `/console/admin/api-keys/${key.id}/rotate`, `/console/admin/api-keys/${key.id}/revoke`]) {
        const answer = await verifier.post(path, { name: 'sneaky', kind: 'admin' }, token);
        assert.equal(answer.status, 403, path);
        assert.doesNotMatch(answer.html, /ts[ki]_/);
      }
      assert.deepEqual(await keys(), before);
      assert.equal((await persons(org, secret)).status, 200);
    });
  });
}
