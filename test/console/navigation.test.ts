import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { backends } from '../helpers/backends.ts';
import { ConsoleAgent, consolePerson, signInWithPassword } from '../helpers/console.ts';
import { startTestService, type TestService } from '../helpers/service.ts';

/** Each link of the console's navigation, with its aria-current when it has one. */
function navLinks(html: string): Record<string, string | null> {
  const nav = /<nav aria-label="Console">([\s\S]*?)<\/nav>/.exec(html)?.[1];
  assert.ok(nav, 'the page has the console navigation');
  return Object.fromEntries([...nav.matchAll(/<a href="([^"]+)"(?: aria-current="([^"]+)")?>/g)].map(([, href, current]) => [href!, current ?? null]));
}

const none = { '/console/verify': null, '/console/security': null, '/console/admin': null };

for (const backend of backends()) {
  describe(`The console's navigation marks where the person is, on ${backend.name}`, () => {
    let t: TestService;
    let agent: ConsoleAgent;
    let csrf: string;

    before(async () => {
      t = await startTestService(backend);
      const org = await t.org();
      agent = new ConsoleAgent(t.url);
      csrf = (await signInWithPassword(agent, org.orgId, await consolePerson(t, org, { roles: ['verifier', 'admin'] }))).csrf;
    });
    after(() => t.close());

    it('marks the link of the page shown with aria-current="page", and no other', async () => {
      for (const path of ['/console/verify', '/console/security', '/console/admin']) {
        const page = await agent.get(path);
        assert.equal(page.status, 200, path);
        assert.deepEqual(navLinks(page.html), { ...none, [path]: 'page' }, path);
      }
    });

    it('marks the section of a page within it with aria-current="true", its query and form answers included', async () => {
      for (const [path, section] of [
        ['/console/admin/clients', '/console/admin'],
        ['/console/admin/audit?type=all&order=oldest', '/console/admin'],
        ['/console/verify/evf_nope', '/console/verify'],
      ] as const) {
        assert.deepEqual(navLinks((await agent.get(path)).html), { ...none, [section]: 'true' }, path);
      }
      const refused = await agent.post('/console/verify/find', { connection_id: 'con_nope', email: 'a@example.com', identity_id: '' }, csrf);
      assert.equal(refused.status, 400);
      assert.deepEqual(navLinks(refused.html), { ...none, '/console/verify': 'true' }, 'a form answered on the page it was posted to');
    });

    it('marks nothing on a page of no section, nor a path that only begins like one', async () => {
      for (const path of ['/console/no-such-page', '/console/administration']) {
        const page = await agent.get(path);
        assert.equal(page.status, 404, path);
        assert.deepEqual(navLinks(page.html), none, path);
      }
    });
  });
}
