import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { addTotp, login, policyHash, signInWithTwoFactors, twoFactorPerson } from '../helpers/authn.ts';
import { backends } from '../helpers/backends.ts';
import { ConsoleAgent, type ConsolePage, signInWithPassword } from '../helpers/console.ts';
import { startFrozenService, type TestClock } from '../helpers/frozen-service.ts';
import { introspect } from '../helpers/oauth.ts';
import { errorCodes, type TestOrg, type TestService } from '../helpers/service.ts';

const GOOD_PASSWORD = 'violet kettle under the stairs';

/** A person of `org` with an email handle and `roles`, nothing else; their id and address. */
async function bareperson(t: TestService, org: TestOrg, body: Record<string, unknown> = {}): Promise<{ id: string; email: string }> {
  const email = `i${Math.random().toString(36).slice(2)}@example.com`;
  const created = await t.call('POST', '/persons', { as: org, body: { handles: [{ type: 'email_address', value: email }], console: true, ...body } });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  return { id: created.body.result.id, email };
}

/** The path of an invitation URL (the agent talks to the test service's address). */
const pathOf = (url: string) => new URL(url).pathname;

/** Opens the link and submits the form with `password` (twice, unless `again` differs). */
async function redeem(agent: ConsoleAgent, url: string, password: string, again = password): Promise<{ page: ConsolePage; answer: ConsolePage }> {
  const page = await agent.get(pathOf(url));
  assert.equal(page.status, 200, page.html.slice(0, 400));
  const token = pathOf(url).split('/').at(-1)!;
  const answer = await agent.post('/console/invitation', { token, password, password_again: again }, page.csrf);
  return { page, answer };
}

async function events(t: TestService, org: TestOrg, type: string): Promise<Record<string, any>[]> {
  return (await t.call('GET', `/audit/events?type=${type}&limit=100`, { as: org })).body.result.map((e: { data: unknown }) => e.data);
}

for (const backend of backends()) {
  describe(`Invitations (design §9), on ${backend.name}`, () => {
    const clock: TestClock = { at: Date.parse('2026-11-28T09:00:00Z') };
    let t: TestService;
    let org: TestOrg;
    const invite = (personId: string, body: Record<string, unknown> = {}, as: TestOrg | Record<string, string> = org) =>
      t.call('POST', `/persons/${personId}/invitations`, { as, body });

    before(async () => {
      t = await startFrozenService(backend, clock, { loginFailureTimeMs: 100 });
      org = await t.org();
    });
    after(() => t.close());

    it('makes a one-time link (201) that sets a password and signs a console member in, once; then the password logs in', async () => {
      const person = await bareperson(t, org);
      const made = await invite(person.id, { expires_in: 3600 });
      assert.equal(made.status, 201, JSON.stringify(made.body));
      const { url, expires_at, reset, emailed_to } = made.body.result;
      assert.match(url, new RegExp(`^${t.url}/console/invitation/[A-Za-z0-9_-]{43}$`));
      assert.deepEqual([expires_at, reset, emailed_to], [new Date(clock.at + 3600_000).toISOString(), false, null]);
      const agent = new ConsoleAgent(t.url);
      const { page, answer } = await redeem(agent, url, GOOD_PASSWORD);
      assert.match(page.html, new RegExp(`For <strong>${person.email.replace('.', '\\.')}</strong>`));
      assert.deepEqual([answer.status, answer.location], [303, '/console/'], answer.html.slice(0, 400));
      assert.equal((await agent.follow(answer)).location, '/console/security');
      assert.equal((await agent.get('/console/security')).status, 200);
      const again = await new ConsoleAgent(t.url).get(pathOf(url));
      assert.equal(again.status, 404);
      assert.match(again.html, /this link does not work: it was used, replaced by a newer one, or it expired/);
      const logged = await login(t, org, '/authn/password', { handle: { type: 'email_address', value: person.email }, password: GOOD_PASSWORD });
      assert.equal(logged.status, 200, JSON.stringify(logged.body));
      const [redeemed] = await events(t, org, 'person.invitation_redeemed');
      assert.deepEqual([redeemed?.person_id, redeemed?.reset, redeemed?.credentials_replaced, redeemed?.second_factor_owed], [person.id, false, 0, false]);
      const invited = (await events(t, org, 'person.invited')).find((e) => e.person_id === person.id);
      assert.deepEqual([invited?.reset, invited?.emailed, invited?.operator], [false, false, 'api_key']);
    });

    it('holds the chosen password to the new-password rules (400 on the form, naming the rule); nothing is set and the link still works', async () => {
      const person = await bareperson(t, org);
      const { url } = (await invite(person.id)).body.result;
      const cases: [string, string, RegExp][] = [
        ['short one', 'short one', /password: must be at least 12 characters \(it has 9\)/],
        ['password1234', 'password1234', /password: is one of the passwords guessed first/],
        ['aaaaaaaaaaaaaa', 'aaaaaaaaaaaaaa', /password: is one of the passwords guessed first/],
        [`${person.email}12`, `${person.email}12`, /password: must not be mostly the organisation.{1,6}s name or your own handle/],
        [GOOD_PASSWORD, `${GOOD_PASSWORD}!`, /password_again: does not match the password/],
      ];
      for (const [password, again, message] of cases) {
        const { answer } = await redeem(new ConsoleAgent(t.url), url, password, again);
        assert.equal(answer.status, 400, password);
        assert.match(answer.html, message);
      }
      const credentials = await t.call('GET', `/persons/${person.id}/credentials`, { as: org });
      assert.equal(credentials.body.result.length, 0);
      assert.equal((await redeem(new ConsoleAgent(t.url), url, GOOD_PASSWORD)).answer.status, 303);
    });

    it('expires at expires_at (frozen clock), and a new invitation revokes the one before', async () => {
      const person = await bareperson(t, org);
      const first = (await invite(person.id, { expires_in: 300 })).body.result.url;
      clock.at += 300_000;
      assert.equal((await new ConsoleAgent(t.url).get(pathOf(first))).status, 404);
      clock.at -= 1;
      assert.equal((await new ConsoleAgent(t.url).get(pathOf(first))).status, 200);
      clock.at += 1;
      const second = (await invite(person.id)).body.result.url;
      const third = (await invite(person.id)).body.result.url;
      assert.equal((await new ConsoleAgent(t.url).get(pathOf(second))).status, 404);
      assert.equal((await redeem(new ConsoleAgent(t.url), third, GOOD_PASSWORD)).answer.status, 303);
    });

    it('is revoked by deleting the person', async () => {
      const person = await bareperson(t, org);
      const { url } = (await invite(person.id)).body.result;
      assert.equal((await t.call('DELETE', `/persons/${person.id}`, { as: org })).status, 204);
      assert.equal((await new ConsoleAgent(t.url).get(pathOf(url))).status, 404);
    });

    it('cannot skip a second factor: an administrator is kept to the enrolment page, the link open until a factor is added, then spent', async () => {
      const person = await bareperson(t, org, { roles: ['admin'] });
      const { url } = (await invite(person.id)).body.result;
      const agent = new ConsoleAgent(t.url);
      const { page, answer } = await redeem(agent, url, GOOD_PASSWORD);
      assert.match(page.html, /Your roles need two factors/);
      assert.equal(answer.status, 303);
      assert.equal((await agent.follow(answer)).location, '/console/enrol');
      assert.equal((await agent.get('/console/admin/persons')).location, '/console/enrol');
      const token = await login(t, org, '/authn/password', { handle: { type: 'email_address', value: person.email }, password: GOOD_PASSWORD });
      assert.equal(token.body.result.second_factor_required, undefined);
      // Still open for them (a browser that lost the session), until the factor is there.
      assert.equal((await new ConsoleAgent(t.url).get(pathOf(url))).status, 200);
      const [owed] = await events(t, org, 'person.invitation_redeemed').then((all) => all.filter((e) => e.person_id === person.id));
      assert.equal(owed?.second_factor_owed, true);
      await addTotp(t, org, person.id);
      assert.equal((await new ConsoleAgent(t.url).get(pathOf(url))).status, 404);
    });

    it('is a reset for a person who holds credentials: replaces them, ends their sessions and tokens, clears their counters, audited as such', async () => {
      const victim = await twoFactorPerson(t, org, { console: true });
      const theirs = new ConsoleAgent(t.url);
      await signInWithPassword(theirs, org.orgId, victim);
      assert.equal((await theirs.get('/console/security')).status, 200);
      const jwt = await signInWithTwoFactors(t, org, victim);
      assert.equal((await introspect(t, jwt, org)).body.active, true);
      const made = await invite(victim.id);
      assert.equal(made.body.result.reset, true);
      // Nothing changes before the link is used.
      const before = await login(t, org, '/authn/password', { handle: { type: 'email_address', value: victim.email }, password: victim.password });
      assert.equal(before.status, 200);
      for (let i = 0; i < 3; i++) await login(t, org, '/authn/password', { handle: { type: 'email_address', value: victim.email }, password: 'wrong guess' });
      const { answer } = await redeem(new ConsoleAgent(t.url), made.body.result.url, GOOD_PASSWORD);
      assert.equal(answer.status, 303);
      assert.equal((await theirs.get('/console/security')).status, 303, 'their earlier console session ended');
      assert.deepEqual((await introspect(t, jwt, org)).body, { active: false }, 'and their earlier tokens');
      const credentials = (await t.call('GET', `/persons/${victim.id}/credentials`, { as: org })).body.result;
      assert.deepEqual(
        credentials.map((c: { type: string }) => c.type),
        ['password'],
      );
      const old = await login(t, org, '/authn/password', { handle: { type: 'email_address', value: victim.email }, password: victim.password });
      assert.equal(old.status, 401);
      const attempts = (await t.call('GET', `/persons/${victim.id}/authn-attempts`, { as: org })).body.result;
      assert.deepEqual(
        attempts.map((a: { failures: number }) => a.failures),
        [1],
        'cleared at redemption; the old password counted once since',
      );
      const redeemed = (await events(t, org, 'person.invitation_redeemed')).find((e) => e.person_id === victim.id);
      assert.deepEqual([redeemed?.reset, redeemed?.credentials_replaced, redeemed?.attempt_counters_cleared], [true, 2, 1]);
    });

    it('of two redemptions of one link at once, exactly one wins', async () => {
      const person = await bareperson(t, org);
      const { url } = (await invite(person.id)).body.result;
      const answers = await Promise.all([0, 1].map(() => redeem(new ConsoleAgent(t.url), url, GOOD_PASSWORD).then((r) => r.answer.status)));
      assert.deepEqual(answers.sort(), [303, 404]);
    });

    it('refuses bad requests with the field and the rule, and answers links that do not work alike (404)', async () => {
      const person = await bareperson(t, org);
      const cases: [string, unknown, number, string, RegExp][] = [
        [person.id, { expires_in: 299 }, 400, 'INVALID_FIELD', /body\.expires_in/],
        [person.id, { expires_in: 604_801 }, 400, 'INVALID_FIELD', /body\.expires_in/],
        [person.id, { send: 'yes' }, 400, 'INVALID_FIELD', /body\.send/],
        [person.id, { lifetime: 1 }, 400, 'INVALID_FIELD', /lifetime/],
        ['per_unknown', {}, 404, 'NOT_FOUND', /path\.person_id/],
      ];
      for (const [id, body, status, code, message] of cases) {
        const answer = await invite(id, body as Record<string, unknown>);
        assert.deepEqual([answer.status, errorCodes(answer.body)], [status, [code]], JSON.stringify(body));
        assert.match(answer.body.errors[0].message, message);
      }
      const phoneOnly = await t.call('POST', '/persons', { as: org, body: { handles: [{ type: 'phone_number', value: '+14155550100' }] } });
      const noMailbox = await invite(phoneOnly.body.result.id, { send: true });
      assert.equal(noMailbox.status, 400);
      assert.match(noMailbox.body.errors[0].message, /body\.send: the person has no email_address handle/);
      for (const path of ['/console/invitation/short', `/console/invitation/${'A'.repeat(43)}`, `/console/invitation/${'A'.repeat(44)}`]) {
        const page = await new ConsoleAgent(t.url).get(path);
        assert.equal(page.status, 404, path);
        assert.match(page.html, /this link does not work/);
      }
    });

    it('takes no body at all: the defaults (72 hours, not sent)', async () => {
      const person = await bareperson(t, org);
      const answer = await fetch(`${t.url}/persons/${person.id}/invitations`, { method: 'POST', headers: org.headers });
      const body = (await answer.json()) as { result: { expires_at: string; emailed_to: string | null } };
      assert.equal(answer.status, 201, JSON.stringify(body));
      assert.deepEqual([body.result.expires_at, body.result.emailed_to], [new Date(clock.at + 72 * 3600_000).toISOString(), null]);
    });

    it('is for admin keys only (403 for an integration key)', async () => {
      const person = await bareperson(t, org);
      const key = await t.call('POST', '/organizations/api-keys', { as: org, body: { name: `int-${Date.now()}`, kind: 'integration' } });
      const integration = { 'service-orgid': org.orgId, 'service-api-key': key.body.result.api_key };
      const answer = await invite(person.id, {}, integration);
      assert.equal(answer.status, 403, JSON.stringify(answer.body));
    });

    it('bounds guesses per address like logins: a fifth link opened at once from one address is 429', async () => {
      const statuses = await Promise.all(
        [0, 1, 2, 3, 4].map((i) => new ConsoleAgent(t.url).get(`/console/invitation/${String(i).repeat(43)}`).then((page) => page.status)),
      );
      assert.deepEqual(statuses.sort(), [404, 404, 404, 404, 429]);
    });

    it('a password imported earlier counts as credentials (reset), and the policy hash replaces it', async () => {
      const person = await bareperson(t, org);
      await t.call('POST', `/persons/${person.id}/credentials`, {
        as: org,
        body: { type: 'password', params: { password_hash: await policyHash('old one') } },
      });
      const made = (await invite(person.id)).body.result;
      assert.equal(made.reset, true);
      assert.equal((await redeem(new ConsoleAgent(t.url), made.url, GOOD_PASSWORD)).answer.status, 303);
      const [credential] = (await t.call('GET', `/persons/${person.id}/credentials`, { as: org })).body.result;
      assert.match(credential.params.password_hash, /^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    });
  });
}
