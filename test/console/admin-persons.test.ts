import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { backends } from '../helpers/backends.ts';
import { ConsoleAgent, type ConsolePerson, consolePerson, signInWithPassword } from '../helpers/console.ts';
import { startTestService, type TestOrg, type TestService } from '../helpers/service.ts';

const rows = (html: string) => [...html.matchAll(/<tr><th scope="row">/g)].length;

for (const backend of backends()) {
  describe(`Console administration of persons, on ${backend.name}`, () => {
    let t: TestService;
    let org: TestOrg;
    let admin: ConsolePerson;
    let agent: ConsoleAgent;
    let csrf: string;
    const count = async () => (await t.call('GET', '/persons', { as: org })).body.meta.cursor_pagination.total_count as number;

    before(async () => {
      t = await startTestService(backend);
      org = await t.org();
      admin = await consolePerson(t, org, { roles: ['admin'] });
      agent = new ConsoleAgent(t.url);
      csrf = (await signInWithPassword(agent, org.orgId, admin)).csrf;
    });
    after(() => t.close());

    it('creates a person from the form, with roles and console membership, as the API then shows', async () => {
      const created = await agent.post(
        '/console/admin/persons',
        { email: ' Grace.Hopper@Example.com ', phone: '+14155550100', roles: ['verifier'], console: 'yes' },
        csrf,
      );
      assert.equal(created.status, 303, created.html);
      const page = await agent.follow(created);
      assert.equal(page.status, 200);
      assert.match(page.html, /<h1>grace\.hopper@example\.com, \+14155550100<\/h1>/);
      assert.match(page.html, /Person created\./);
      const id = /\/console\/admin\/persons\/(per_[0-9a-z]+)/.exec(created.location!)![1]!;
      const read = (await t.call('GET', `/persons/${id}`, { as: org })).body.result;
      assert.deepEqual(
        [read.handles.map((h: { value: string }) => h.value), read.roles, read.console],
        [['grace.hopper@example.com', '+14155550100'], ['verifier'], true],
      );
      const list = await agent.get('/console/admin/persons');
      assert.match(list.html, new RegExp(`href="/console/admin/persons/${id}">grace\\.hopper@example\\.com`));
    });

    it('names the field and the rule on bad input (400), keeps what was typed and writes nothing', async () => {
      const before = await count();
      const cases: [Record<string, string | string[]>, RegExp][] = [
        [{ email: '' }, /email: is required/],
        [{ email: 'not-an-address' }, /email: must be/],
        [{ email: 'ok@example.com', phone: '0041 44 668 18 00' }, /phone: must be an E\.164 phone number/],
        [{ email: 'ok@example.com', roles: ['owner'] }, /roles\[0\]: must be one of admin, verifier/],
        [{ email: 'x@', roles: ['owner'] }, /<li>roles\[0\]: must be one of admin, verifier<\/li><li>email: must be/],
      ];
      for (const [fields, message] of cases) {
        const answer = await agent.post('/console/admin/persons', fields, csrf);
        assert.equal(answer.status, 400, `${JSON.stringify(fields)}: ${answer.html.slice(0, 200)}`);
        assert.match(answer.html, message);
        assert.match(answer.html, /There is a problem/);
        if (fields.email) assert.match(answer.html, new RegExp(`id="email" name="email" type="email" value="${fields.email}"`));
      }
      assert.equal(await count(), before, 'nothing was written');
    });

    it('shows the API conflict message with 409 for a handle already taken, and writes nothing', async () => {
      const before = await count();
      const answer = await agent.post('/console/admin/persons', { email: admin.email.toUpperCase() }, csrf);
      assert.equal(answer.status, 409);
      assert.match(
        answer.html,
        new RegExp(`handles: email_address ${admin.email.replace(/\./g, '\\.')} is already used by another person of this organisation`),
      );
      assert.equal(await count(), before);
    });

    it('pages through the persons with the API cursors, Previous and Next, and refuses a foreign cursor naming it', async () => {
      const own = await t.org();
      const boss = await consolePerson(t, own, { roles: ['admin'] });
      for (let i = 0; i < 26; i++) {
        const made = await t.call('POST', '/persons', { as: own, body: { handles: [{ type: 'email_address', value: `p${i}@example.com` }] } });
        assert.equal(made.status, 201);
      }
      const browser = new ConsoleAgent(t.url);
      await signInWithPassword(browser, own.orgId, boss);
      const first = await browser.get('/console/admin/persons');
      assert.equal(rows(first.html), 25);
      assert.match(first.html, /27 persons in all\./);
      assert.doesNotMatch(first.html, /Previous page/);
      const next = /<a rel="next" href="([^"]+)">Next page<\/a>/.exec(first.html)![1]!.replace(/&amp;/g, '&');
      const second = await browser.get(next);
      assert.equal(second.status, 200);
      assert.equal(rows(second.html), 2);
      assert.match(second.html, /p25@example\.com/);
      assert.doesNotMatch(second.html, /Next page/);
      const previous = /<a rel="prev" href="([^"]+)">Previous page<\/a>/.exec(second.html)![1]!.replace(/&amp;/g, '&');
      assert.equal(rows((await browser.get(previous)).html), 25);
      const foreign = Buffer.from(JSON.stringify(['connections', 'l', ''])).toString('base64url');
      const refused = await browser.get(`/console/admin/persons?cursor=${foreign}`);
      assert.equal(refused.status, 400);
      assert.match(refused.html, /query\.cursor: is not a cursor of this list \(persons\)/);
    });

    it('changes roles and console membership; a person taken out of the console is signed out at once', async () => {
      const verifier = await consolePerson(t, org, { roles: ['verifier'] });
      const theirs = new ConsoleAgent(t.url);
      await signInWithPassword(theirs, org.orgId, verifier);
      assert.equal((await theirs.get('/console/verify')).status, 200);
      const made = await agent.post(`/console/admin/persons/${verifier.id}/access`, { roles: ['admin', 'verifier'] }, csrf);
      assert.equal(made.status, 303);
      assert.match((await agent.follow(made)).html, /Roles and console membership saved\./);
      const read = (await t.call('GET', `/persons/${verifier.id}`, { as: org })).body.result;
      assert.deepEqual([read.roles, read.console], [['admin', 'verifier'], false]);
      const next = await theirs.get('/console/verify');
      assert.equal(next.status, 303);
      assert.equal(next.location, '/console/sign-in?notice=expired');
    });

    it('deletes a person (confirmed by the page), who is then gone from the API and from the console', async () => {
      const doomed = await consolePerson(t, org, { roles: ['verifier'] });
      const theirs = new ConsoleAgent(t.url);
      await signInWithPassword(theirs, org.orgId, doomed);
      const page = await agent.get(`/console/admin/persons/${doomed.id}`);
      assert.match(page.html, /<form method="post" action="\/console\/admin\/persons\/per_[0-9a-z]+\/delete" class="stack" data-confirm="[^"]+">/);
      const deleted = await agent.post(`/console/admin/persons/${doomed.id}/delete`, {}, csrf);
      assert.equal(deleted.status, 303);
      assert.match((await agent.follow(deleted)).html, /Person deleted\./);
      assert.equal((await t.call('GET', `/persons/${doomed.id}`, { as: org })).status, 404);
      assert.equal((await theirs.get('/console/verify')).location, '/console/sign-in?notice=expired');
      assert.equal((await agent.get(`/console/admin/persons/${doomed.id}`)).status, 404);
    });

    it('refuses an administrator removing their own admin role or membership, or deleting themselves (409), changing nothing', async () => {
      const refusals: [string, Record<string, string | string[]>, RegExp][] = [
        ['access', { roles: ['verifier'], console: 'yes' }, /roles: you cannot remove your own admin role/],
        ['access', { roles: ['admin'] }, /console: you cannot remove your own console membership/],
        ['delete', {}, /person: you cannot delete yourself/],
      ];
      for (const [what, fields, message] of refusals) {
        const answer = await agent.post(`/console/admin/persons/${admin.id}/${what}`, fields, csrf);
        assert.equal(answer.status, 409);
        assert.match(answer.html, message);
      }
      const read = (await t.call('GET', `/persons/${admin.id}`, { as: org })).body.result;
      assert.deepEqual([read.roles, read.console], [['admin'], true]);
      assert.equal((await agent.get('/console/admin/persons')).status, 200, 'still signed in, still an administrator');
      assert.doesNotMatch((await agent.get(`/console/admin/persons/${admin.id}`)).html, /Delete this person/);
    });

    it('refuses a form without its CSRF token (403) and changes nothing', async () => {
      const target = await consolePerson(t, org, { roles: ['verifier'] });
      const before = await count();
      const create = await agent.post('/console/admin/persons', { email: 'csrf@example.com', _csrf: null }, csrf);
      const access = await agent.post(`/console/admin/persons/${target.id}/access`, { roles: ['admin'], console: 'yes', _csrf: null }, csrf);
      const remove = await agent.post(`/console/admin/persons/${target.id}/delete`, { _csrf: null }, csrf);
      for (const answer of [create, access, remove]) assert.equal(answer.status, 403);
      assert.equal(await count(), before);
      const read = (await t.call('GET', `/persons/${target.id}`, { as: org })).body.result;
      assert.deepEqual([read.roles, read.console], [['verifier'], true]);
    });

    it('is for administrators only: a verifier gets 403 on every page and form', async () => {
      const verifier = await consolePerson(t, org, { roles: ['verifier'] });
      const theirs = new ConsoleAgent(t.url);
      const page = await signInWithPassword(theirs, org.orgId, verifier);
      for (const path of ['/console/admin', '/console/admin/persons', `/console/admin/persons/${admin.id}`]) {
        const answer = await theirs.get(path);
        assert.equal(answer.status, 403, path);
        assert.match(answer.html, /this page is for persons holding the admin role/);
      }
      const before = await count();
      assert.equal((await theirs.post('/console/admin/persons', { email: 'sneaky@example.com', roles: ['admin'], console: 'yes' }, page.csrf)).status, 403);
      assert.equal((await theirs.post(`/console/admin/persons/${verifier.id}/access`, { roles: ['admin'], console: 'yes' }, page.csrf)).status, 403);
      assert.equal((await theirs.post(`/console/admin/persons/${admin.id}/delete`, {}, page.csrf)).status, 403);
      assert.equal(await count(), before);
      assert.deepEqual((await t.call('GET', `/persons/${verifier.id}`, { as: org })).body.result.roles, ['verifier']);
    });
  });
}
