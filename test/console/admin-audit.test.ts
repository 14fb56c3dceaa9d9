import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { auditEventTypes } from '../../src/console/admin/audit.ts';
import { backends } from '../helpers/backends.ts';
import { ConsoleAgent, type ConsolePerson, consolePerson, signInWithPassword } from '../helpers/console.ts';
import { startTestService, type TestOrg, type TestService } from '../helpers/service.ts';

const rowTypes = (html: string) =>
  [...html.matchAll(/<tr><th scope="row" class="audit-time"><time[^>]*>[^<]*<\/time><\/th><td>([a-z_.]+)<\/td>/g)].map((m) => m[1]);
const rowData = (html: string) => [...html.matchAll(/<\/td><td>(<dl class="event-data">.*?)<\/td><\/tr>/g)].map((m) => m[1]!);
/** An event's details as the page labels them: label → value. */
const pairs = (row: string) => Object.fromEntries([...row.matchAll(/<dt>([^<]*)<\/dt> <dd>([^<]*)<\/dd>/g)].map((m) => [m[1]!, m[2]!]));
const link = (html: string, rel: 'prev' | 'next') => new RegExp(`<a rel="${rel}" href="([^"]+)"`).exec(html)?.[1]?.replace(/&amp;/g, '&');

/** The event types written anywhere in src: literals in files that record events. */
function typesWrittenInSrc(): Set<string> {
  const root = fileURLToPath(new URL('../../src/', import.meta.url));
  const found = new Set<string>();
  for (const file of readdirSync(root, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'))) {
    const text = readFileSync(`${root}${file}`, 'utf8');
    if (!/recordEvent\(|recordDirectoryEvent\(|auditType|DirectoryEventType/.test(text) || file.endsWith('console/admin/audit.ts')) continue;
    for (const [, literal] of text.matchAll(/'([a-z]+(?:\.[a-z_]+)+)'/g)) {
      if (!/^(body|path|query|header)\./.test(literal!) && !/\.(ts|js|css)$/.test(literal!)) found.add(literal!);
    }
  }
  return found;
}

describe('The audit log page knows every event type', () => {
  it('lists each type the service writes in its filter', () => {
    const missing = [...typesWrittenInSrc()].filter((type) => !(auditEventTypes as readonly string[]).includes(type));
    assert.deepEqual(missing, [], 'add these to auditEventTypes in src/console/admin/audit.ts');
  });
});

for (const backend of backends()) {
  describe(`Console audit log, on ${backend.name}`, () => {
    let t: TestService;
    let org: TestOrg;
    let admin: ConsolePerson;
    let agent: ConsoleAgent;

    before(async () => {
      t = await startTestService(backend);
      org = await t.org();
      admin = await consolePerson(t, org, { roles: ['admin'] });
      agent = new ConsoleAgent(t.url);
      await signInWithPassword(agent, org.orgId, admin);
    });
    after(() => t.close());

    it('shows the events newest first, their data escaped and long values cut short', async () => {
      const name = `<script>alert("x")</script>${'y'.repeat(70)}`;
      const created = await t.call('POST', '/organizations/connections', { as: org, body: { name, type: 'scim' } });
      assert.equal(created.status, 201);
      assert.equal((await t.call('DELETE', `/organizations/connections/${created.body.result.id}`, { as: org })).status, 204);
      const page = await agent.get('/console/admin/audit');
      assert.equal(page.status, 200);
      const api = (await t.call('GET', '/audit/events?limit=100', { as: org })).body.result.map((e: { type: string }) => e.type);
      assert.deepEqual(rowTypes(page.html), [...api].reverse(), 'newest first: the API order, backwards');
      assert.ok(!page.html.includes('<script>alert'), 'nothing of the data is markup');
      const summary = pairs(rowData(page.html).find((d) => d.includes('<dt>name</dt>'))!);
      assert.match(summary.name!, /^&lt;script&gt;alert\(&quot;x&quot;\)&lt;\/script&gt;y+…$/);
      assert.ok(!summary.name!.includes('y'.repeat(70)), 'a long value is cut short');
      assert.equal(summary.type, 'scim');
      const oldest = await agent.get('/console/admin/audit?order=oldest');
      assert.deepEqual(rowTypes(oldest.html), api);
      assert.match(oldest.html, /<option value="oldest" selected>/);
    });

    it('shows details as labelled pairs, leaving out the fields that are null, and each time to the second in the column headed UTC', async () => {
      // The sign-in of `before` was a success: the API records its reason as null.
      const api = (await t.call('GET', '/audit/events?type=authn.attempt&limit=100', { as: org })).body.result as { data: Record<string, unknown> }[];
      const success = api.find((e) => e.data.outcome === 'success')!.data;
      assert.equal(success.reason, null, 'the event the page shows has a null field');
      const page = await agent.get('/console/admin/audit?type=authn.attempt&order=oldest');
      const shown = pairs(rowData(page.html).find((d) => d.includes(`<dd>${success.credential_id}</dd>`))!);
      assert.deepEqual(shown, {
        method: success.method,
        'person id': admin.id,
        'credential id': success.credential_id,
        outcome: 'success',
      });
      assert.doesNotMatch(page.html, /<dt>reason<\/dt>|<dd>null<\/dd>/);
      assert.doesNotMatch(rowData(page.html).join(''), /\w=\w/, 'no raw key=value pairs');
      assert.match(page.html, /<th scope="col">Time \(UTC\)<\/th>/);
      const times = [...page.html.matchAll(/<th scope="row" class="audit-time"><time datetime="([^"]+)">([^<]+)<\/time>/g)];
      assert.ok(times.length > 0);
      for (const [, iso, text] of times) assert.equal(text, iso!.slice(0, 19).replace('T', ' '), 'date and time, no zone repeated on each row');
      // Empty lists are kept: "roles: none" says something.
      const created = await t.call('POST', '/persons', { as: org, body: { handles: [{ type: 'email_address', value: 'nobody-special@example.com' }] } });
      const persons = await agent.get('/console/admin/audit?type=person.created');
      const row = pairs(rowData(persons.html).find((d) => d.includes(created.body.result.id))!);
      assert.equal(row.roles, 'none');
      assert.equal(row.console, 'false');
    });

    it('filters by type, with "all" and each known type to choose from', async () => {
      const page = await agent.get('/console/admin/audit?type=connection.deleted');
      assert.equal(page.status, 200);
      assert.deepEqual([...new Set(rowTypes(page.html))], ['connection.deleted']);
      assert.match(page.html, /<option value="connection\.deleted" selected>/);
      for (const type of auditEventTypes) assert.match(page.html, new RegExp(`<option value="${type.replace(/\./g, '\\.')}"`));
      assert.match(page.html, /<option value="all">all<\/option>/);
      const all = await agent.get('/console/admin/audit?type=all');
      assert.ok(new Set(rowTypes(all.html)).size > 1);
      const none = await agent.get('/console/admin/audit?type=verification.attempt');
      assert.match(none.html, /No events of type verification\.attempt\./);
    });

    it('refuses an unknown type, order or a cursor of another filter, naming the parameter (400)', async () => {
      const cases: [string, RegExp][] = [
        ['/console/admin/audit?type=nope.nope', /query\.type: must be all or one of the event types listed/],
        ['/console/admin/audit?type=<b>', /query\.type: must be all or one of the event types listed/],
        ['/console/admin/audit?order=sideways', /query\.order: must be newest or oldest/],
        ['/console/admin/audit?cursor=garbage', /query\.cursor: is not a cursor of this list \(audit:\*\)/],
      ];
      for (const [path, message] of cases) {
        const answer = await agent.get(path);
        assert.equal(answer.status, 400, path);
        assert.match(answer.html, message);
      }
    });

    it('pages with the API cursors, Previous and Next, in either order; a cursor of one filter is refused by another', async () => {
      const own = await t.org();
      const boss = await consolePerson(t, own, { roles: ['admin'] });
      for (let i = 0; i < 27; i++) {
        assert.equal((await t.call('POST', '/organizations/connections', { as: own, body: { name: `c${i}`, type: 'scim' } })).status, 201);
      }
      const browser = new ConsoleAgent(t.url);
      await signInWithPassword(browser, own.orgId, boss);
      const api = (await t.call('GET', '/audit/events?limit=100&type=connection.created', { as: own })).body.result.map(
        (e: { data: { name: string } }) => e.data.name,
      );
      const names = (html: string) => rowData(html).map((d) => pairs(d).name);
      for (const [order, expected] of [
        ['newest', [...api].reverse()],
        ['oldest', api],
      ] as const) {
        const first = await browser.get(`/console/admin/audit?type=connection.created&order=${order}`);
        assert.deepEqual(names(first.html), expected.slice(0, 25), order);
        assert.equal(link(first.html, 'prev'), undefined);
        const second = await browser.get(link(first.html, 'next')!);
        assert.deepEqual(names(second.html), expected.slice(25), order);
        assert.equal(link(second.html, 'next'), undefined);
        assert.deepEqual(names((await browser.get(link(second.html, 'prev')!)).html), expected.slice(0, 25));
      }
      const first = await browser.get('/console/admin/audit?type=connection.created');
      const cursor = new URL(link(first.html, 'next')!, t.url).searchParams.get('cursor');
      const crossed = await browser.get(`/console/admin/audit?type=all&cursor=${cursor}`);
      assert.equal(crossed.status, 400);
      assert.match(crossed.html, /query\.cursor: is not a cursor of this list \(audit:\*\)/);
    });

    it('is for administrators only: a verifier gets 403', async () => {
      const verifier = await consolePerson(t, org, { roles: ['verifier'] });
      const theirs = new ConsoleAgent(t.url);
      await signInWithPassword(theirs, org.orgId, verifier);
      for (const path of ['/console/admin/audit', '/console/admin/audit?type=connection.created&order=oldest']) {
        const answer = await theirs.get(path);
        assert.equal(answer.status, 403);
        assert.doesNotMatch(answer.html, /<table>/);
      }
    });
  });
}
