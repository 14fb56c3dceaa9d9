import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { RECENT_SIGN_IN_MS } from '../../src/authn/assurance.ts';
import { addTotp } from '../helpers/authn.ts';
import { backends } from '../helpers/backends.ts';
import { ConsoleAgent, type ConsolePerson, consolePerson, signInWithPassword } from '../helpers/console.ts';
import { startFrozenService, type TestClock } from '../helpers/frozen-service.ts';
import type { TestOrg, TestService } from '../helpers/service.ts';

for (const backend of backends()) {
  describe(`The person page's invitations and resets (design §9), on ${backend.name}`, () => {
    const clock: TestClock = { at: Date.parse('2026-11-28T10:00:00Z') };
    let t: TestService;
    let org: TestOrg;
    let admin: ConsolePerson;
    let agent: ConsoleAgent;
    const invitationEvents = async () =>
      (await t.call('GET', '/audit/events?type=person.invited', { as: org })).body.result.map((e: { data: Record<string, unknown> }) => e.data);

    before(async () => {
      t = await startFrozenService(backend, clock);
      org = await t.org();
      admin = await consolePerson(t, org, { roles: ['admin'] });
      agent = new ConsoleAgent(t.url);
      await signInWithPassword(agent, org.orgId, admin);
    });
    after(() => t.close());

    it('makes an invitation link for a person without credentials and shows it once; the page then says it is open', async () => {
      const created = await t.call('POST', '/persons', {
        as: org,
        body: { handles: [{ type: 'email_address', value: 'new@example.com' }], roles: ['verifier'] },
      });
      const id = created.body.result.id as string;
      const page = await agent.get(`/console/admin/persons/${id}`);
      assert.match(page.html, /No invitation link is open\./);
      assert.match(page.html, /A one-time link where they choose their password and add a second factor\./);
      assert.match(page.html, /<button type="submit">Make an invitation link<\/button>/);
      const made = await agent.post(`/console/admin/persons/${id}/invitation`, { lifetime_hours: '24' }, page.csrf);
      assert.equal(made.status, 200, made.html.slice(0, 400));
      const link = /<code class="secret" id="invitation-url">([^<]+)<\/code>/.exec(made.html)?.[1];
      assert.match(link ?? '', /\/console\/invitation\/[A-Za-z0-9_-]{43}$/);
      assert.match(made.html, /<dt>Emailed<\/dt><dd>no<\/dd>/);
      assert.equal((await new ConsoleAgent(t.url).get(new URL(link!).pathname)).status, 200);
      const after = await agent.get(`/console/admin/persons/${id}`);
      assert.match(after.html, /An invitation link is open until <time datetime="2026-11-29T10:00:00.000Z">/);
      assert.ok(!after.html.includes(link!), 'the link is never shown again');
      const [event] = (await invitationEvents()).filter((e: Record<string, unknown>) => e.person_id === id);
      assert.deepEqual([event?.operator, event?.console_person_id, event?.reset], ['console', admin.id, false]);
    });

    it('calls it a reset for a person who holds credentials, and asks for a recent sign-in before making one', async () => {
      const holder = await consolePerson(t, org, { roles: [], secondFactor: false });
      const page = await agent.get(`/console/admin/persons/${holder.id}`);
      assert.match(page.html, /the link <strong>resets<\/strong> their sign-in/);
      assert.match(page.html, /data-confirm="Reset this person's sign-in\?|data-confirm="Reset this person&#39;s sign-in\?/);
      clock.at += RECENT_SIGN_IN_MS + 60_000;
      const before = (await invitationEvents()).length;
      const asked = await agent.post(`/console/admin/persons/${holder.id}/invitation`, { lifetime_hours: '72' }, page.csrf);
      assert.deepEqual([asked.status, asked.location], [303, `/console/confirm?next=${encodeURIComponent(`/console/admin/persons/${holder.id}`)}`]);
      assert.equal((await invitationEvents()).length, before, 'nothing made before the confirmation');
    });

    it('says no link is open once a half-used one (password set) is spent by the second factor added since', async () => {
      const created = await t.call('POST', '/persons', {
        as: org,
        body: { handles: [{ type: 'email_address', value: 'half@example.com' }], roles: ['verifier'] },
      });
      const id = created.body.result.id as string;
      const { url } = (await t.call('POST', `/persons/${id}/invitations`, { as: org })).body.result;
      const theirs = new ConsoleAgent(t.url);
      const form = await theirs.get(new URL(url).pathname);
      const token = new URL(url).pathname.split('/').at(-1)!;
      const password = 'a quiet lighthouse at dawn';
      assert.equal((await theirs.post('/console/invitation', { token, password, password_again: password }, form.csrf)).status, 200);
      assert.match((await agent.get(`/console/admin/persons/${id}`)).html, /The password is set; the link is spent once they add a second factor\./);
      await addTotp(t, org, id);
      assert.match((await agent.get(`/console/admin/persons/${id}`)).html, /No invitation link is open\./);
    });

    it("ends a person's lock from their page: the counters start again, audited with the console operator", async () => {
      const locked = await consolePerson(t, org, { roles: [], secondFactor: false });
      for (let i = 0; i < 3; i++) {
        await t.call('POST', '/authn/password', {
          as: { 'service-orgid': org.orgId },
          body: { handle: { type: 'email_address', value: locked.email }, password: 'nope' },
        });
      }
      const page = await agent.get(`/console/admin/persons/${locked.id}`);
      assert.match(page.html, /<th scope="row">password<\/th><td>3<\/td>/);
      const reset = await agent.post(`/console/admin/persons/${locked.id}/attempts/reset`, {}, page.csrf);
      assert.deepEqual([reset.status, reset.location], [303, `/console/admin/persons/${locked.id}?notice=attempts-reset#attempts`]);
      const after = await agent.follow(reset);
      assert.match(after.html, /Failed-attempt counters reset: the person may sign in again at once\./);
      assert.match(after.html, /No failed attempts are counted against this person\./);
      const events = (await t.call('GET', '/audit/events?type=authn.attempts_reset', { as: org })).body.result;
      assert.deepEqual(
        events.map((e: { data: Record<string, unknown> }) => [e.data.person_id, e.data.counters, e.data.operator, e.data.console_person_id]),
        [[locked.id, 1, 'console', admin.id]],
      );
      const unknown = await agent.post('/console/admin/persons/per_nobody/attempts/reset', {}, page.csrf);
      assert.equal(unknown.status, 404);
    });

    it('refuses a lifetime it does not offer, naming the field (400), and makes nothing', async () => {
      const created = await t.call('POST', '/persons', { as: org, body: { handles: [{ type: 'email_address', value: 'odd@example.com' }] } });
      const page = await agent.get(`/console/admin/persons/${created.body.result.id}`);
      const before = (await invitationEvents()).length;
      const answer = await agent.post(`/console/admin/persons/${created.body.result.id}/invitation`, { lifetime_hours: '9999' }, page.csrf);
      assert.equal(answer.status, 400);
      assert.match(answer.html, /lifetime_hours: must be one of 24, 72, 168/);
      assert.equal((await invitationEvents()).length, before);
    });
  });
}
