import assert from 'node:assert/strict';
import { SoftwareAuthenticator } from '../../src/dev/software-authenticator.ts';
import { completeWithCode, importCredential, login, twoFactorPerson, unauditedAttempts } from '../helpers/authn.ts';
import { ConsoleAgent, type ConsolePage, consolePerson, signInWithPassword } from '../helpers/console.ts';
import { claims } from '../helpers/oauth.ts';
import { errorCodes, type TestOrg } from '../helpers/service.ts';
import { asBrowser, configurePasskeys, importParams, ORIGIN } from '../methods/passkey/passkeys.ts';
import { head, hostOf, type SecurityStack, sendRaw } from './harness.ts';
import type { SecurityRow } from './rows.ts';

/** A fresh organisation whose passkeys are bound to localhost on the stack's port. */
async function localhostOrg(s: SecurityStack): Promise<{ org: TestOrg; name: string }> {
  const org = await s.t.org();
  const port = new URL(s.t.url).port;
  await s.t.call('PATCH', '/organizations/config', { as: org, body: { webauthn_rp_id: 'localhost', webauthn_origins: [`http://localhost:${port}`] } });
  return { org, name: (await s.t.service.store.getOrganization(org.orgId))!.name };
}

/** A console person with a password and TOTP, half signed in: the password accepted, the code page open. */
async function atCodeStep(s: SecurityStack): Promise<{ agent: ConsoleAgent; page: ConsolePage; codes: string[] }> {
  const person = await consolePerson(s.t, s.org, { roles: [] });
  const agent = new ConsoleAgent(s.t.url);
  const form = await agent.get('/console/sign-in');
  const answer = await agent.post('/console/sign-in', { organization: s.org.orgId, email: person.email, password: person.password }, form.csrf);
  assert.equal(answer.location, '/console/sign-in/code');
  return { agent, page: await agent.follow(answer), codes: person.recoveryCodes };
}

const huge = (character: string) => character.repeat(60_000);
const failuresOf = async (s: SecurityStack, personId: string) =>
  (await s.t.call('GET', `/persons/${personId}/authn-attempts`, { as: s.org })).body.result.map((c: { failures: number }) => c.failures);

/**
 * Issue 23's login steps and console pages under hostile input: the second factor, the ticket,
 * the confirmation of sensitive actions and the localhost redirect. Each row is a finding of a
 * review of that work, kept.
 */
export const loginRows: SecurityRow[] = [
  {
    request: 'issue 23: a JWT from a code alone (amr otp) asks for new recovery codes of a person who holds TOTP',
    expect: '401 INSUFFICIENT_USER_AUTHENTICATION with the RFC 9470 challenge; no codes made',
    async check(s) {
      const person = await twoFactorPerson(s.t, s.org);
      const code = await login(s.t, s.org, '/authn/totp', { handle: { type: 'email_address', value: person.email }, code: person.recoveryCodes.shift() });
      assert.deepEqual(claims(code.body.result.token).amr, ['otp']);
      const answer = await s.t.call('POST', '/authn/totp/recovery-codes', {
        as: { 'service-orgid': s.org.orgId, authorization: `Bearer ${code.body.result.token}` },
        body: {},
      });
      assert.deepEqual([answer.status, errorCodes(answer.body)], [401, ['INSUFFICIENT_USER_AUTHENTICATION']]);
      assert.match(answer.headers.get('www-authenticate') ?? '', /^Bearer error="insufficient_user_authentication"/);
    },
  },
  {
    request: 'GET /console/sign-in?org=<bound to localhost> with Host: 127.0.0.1:99999 (a port no connection came by)',
    expect: '200, the sign-in page; no redirect, no 500 (was a 500 and an error-level log line per request)',
    async check(s) {
      const { name } = await localhostOrg(s);
      for (const host of ['127.0.0.1:99999', '127.0.0.1:65536', '[::1]:70000', '127.0.0.1:0']) {
        const answer = await sendRaw(s.t.url, head('GET', `/console/sign-in?org=${encodeURIComponent(name)}`, [['Host', host]]));
        assert.equal(answer.status, 200, host);
        assert.equal(answer.headers.location, undefined, host);
      }
    },
  },
  {
    request: 'GET http://evil.example/console/sign-in?org=<bound to localhost> (absolute-form target) with Host: 127.0.0.1:<port>',
    expect: 'no redirect pasted from the raw target (was Location: http://localhost:<port>http://evil.example/…)',
    async check(s) {
      const { name } = await localhostOrg(s);
      const answer = await sendRaw(s.t.url, head('GET', `http://evil.example/console/sign-in?org=${encodeURIComponent(name)}`, [['Host', hostOf(s.t.url)]]));
      assert.ok(!answer.headers.location?.includes('evil.example'), answer.headers.location);
      const plain = await sendRaw(s.t.url, head('GET', `/console/sign-in?org=${encodeURIComponent(name)}`, [['Host', hostOf(s.t.url)]]));
      assert.deepEqual(
        [plain.status, plain.headers.location],
        [302, `http://localhost:${new URL(s.t.url).port}/console/sign-in?org=${encodeURIComponent(name)}`],
      );
    },
  },
  {
    request: 'POST /console/sign-in with a password of 60 000 characters, and one holding U+0000',
    expect: '400 naming password, as POST /authn/password answers; no attempt counted (both were 401 and counted)',
    async check(s) {
      const person = await consolePerson(s.t, s.org, { roles: [] });
      for (const password of [huge('x'), 'correct horse\u0000']) {
        const agent = new ConsoleAgent(s.t.url);
        const form = await agent.get('/console/sign-in');
        const answer = await agent.post('/console/sign-in', { organization: s.org.orgId, email: person.email, password }, form.csrf);
        assert.equal(answer.status, 400);
        assert.match(answer.html, /password: must (NOT have more than 1024 characters|not contain control)/);
      }
      assert.deepEqual(await failuresOf(s, person.id), []);
    },
  },
  {
    request: 'POST /console/sign-in/code with a code of 60 000 characters, and one holding U+0000',
    expect: "400 naming code; none of the ticket's five attempts used (each used one)",
    async check(s) {
      const { agent, page } = await atCodeStep(s);
      for (const code of [huge('1'), '12345\u0000']) {
        const answer = await agent.post('/console/sign-in/code', { code }, page.csrf);
        assert.equal(answer.status, 400);
        assert.match(answer.html, /code: must (NOT have more than 64 characters|not contain control)/);
      }
      const wrong = await agent.post('/console/sign-in/code', { code: '00000000' }, page.csrf);
      assert.match(wrong.html, /4 more attempts with this ticket/, 'the first wrong code is the first attempt');
    },
  },
  {
    request: 'POST /console/confirm with a password of 60 000 characters',
    expect: '400 naming password; nothing hashed, nothing confirmed (the whole value went to the hash)',
    async check(s) {
      const person = await consolePerson(s.t, s.org, { roles: [] });
      const agent = new ConsoleAgent(s.t.url);
      const page = await signInWithPassword(agent, s.org.orgId, person);
      const answer = await agent.post('/console/confirm', { next: '/console/security', password: huge('x') }, page.csrf);
      assert.equal(answer.status, 400);
      assert.match(answer.html, /password: must NOT have more than 1024 characters/);
    },
  },
  {
    request: '/console/confirm?next= with dot segments (/console/../../healthz, /console/%2e%2e/x) or 600 characters long',
    expect: 'the return path falls back to /console/ (dot segments led the browser out of the console; any length came back in Location)',
    async check(s) {
      const person = await consolePerson(s.t, s.org, { roles: [] });
      const agent = new ConsoleAgent(s.t.url);
      const page = await signInWithPassword(agent, s.org.orgId, person);
      for (const next of ['/console/../../healthz', '/console/./x/../../healthz', '/console/%2e%2e/healthz', `/console/${'a'.repeat(600)}`]) {
        const form = await agent.get(`/console/confirm?next=${encodeURIComponent(next)}`);
        assert.match(form.html, /name="next" value="\/console\/"/, next);
        const confirmed = await agent.post('/console/confirm', { next, password: person.password }, page.csrf);
        assert.equal(confirmed.location, '/console/?notice=confirmed', next);
      }
    },
  },
  {
    request: "POST /authn/webauthn/verify with a live ticket and another person's valid passkey",
    expect:
      "401 UNAUTHENTICATED, the second factor does not match, 4 more attempts; the ticket still completes (was SECOND_FACTOR_TICKET_INVALID, 'unknown, already used, expired')",
    async check(s) {
      await configurePasskeys(s.t, s.org);
      const victim = await twoFactorPerson(s.t, s.org);
      const other = await twoFactorPerson(s.t, s.org);
      const theirs = new SoftwareAuthenticator();
      await importCredential(s.t, s.org, other.id, 'public-key', importParams(theirs));
      const first = await login(s.t, s.org, '/authn/password', { handle: { type: 'email_address', value: victim.email }, password: victim.password });
      const ticket = first.body.result.second_factor_ticket as string;
      const options = (await asBrowser(s.t, s.org, '/authn/webauthn/options', { handle: { type: 'email_address', value: other.email } })).body.result;
      const response = theirs.assert({ challenge: options.options.challenge, rpId: options.options.rpId, origin: ORIGIN });
      const answer = await asBrowser(s.t, s.org, '/authn/webauthn/verify', { challenge_id: options.challenge_id, response, second_factor_ticket: ticket });
      assert.deepEqual([answer.status, errorCodes(answer.body)], [401, ['UNAUTHENTICATED']]);
      assert.match(answer.body.errors[0].message, /the second factor does not match; 4 more attempts with this ticket/);
      assert.equal((await completeWithCode(s.t, s.org, ticket, victim.recoveryCodes[0]!)).status, 200);
    },
  },
  {
    request: 'POST /console/sign-in/code from a browser already signed in',
    expect: 'back to the console (303 /console/), not "your session ended"',
    async check(s) {
      const person = await consolePerson(s.t, s.org, { roles: [] });
      const agent = new ConsoleAgent(s.t.url);
      const page = await signInWithPassword(agent, s.org.orgId, person);
      const answer = await agent.post('/console/sign-in/code', { code: '12345678' }, page.csrf);
      assert.deepEqual([answer.status, answer.location], [303, '/console/']);
    },
  },
  {
    request: 'GET /console/sign-in?org=a%00b (U+0000 and other control characters in the organisation to prefill)',
    expect: '200, the sign-in page with the organisation field empty (U+0000 was echoed into the page)',
    async check(s) {
      for (const org of ['a%00b', 'a%1Bb', `${'o'.repeat(101)}`]) {
        const page = await new ConsoleAgent(s.t.url).get(`/console/sign-in?org=${org}`);
        assert.equal(page.status, 200, org);
        assert.match(page.html, /name="organization"[^>]*value=""/, org);
        assert.ok(!page.html.includes('\u0000'), org);
      }
    },
  },
  {
    request: 'issue 24 review: wrong passwords for 8 made-up handles, then 20 more at a handle they locked out (429)',
    expect: 'no authn.attempt event for any (2,000 such requests wrote 2,000 events); the metric counts them',
    async check(s) {
      const org = await s.t.org();
      const events = async () => (await s.t.call('GET', '/audit/events?type=authn.attempt&limit=100', { as: org })).body.meta.cursor_pagination.total_count;
      const strangers = { method: 'password', outcome: 'failure', reason: 'unknown_handle' };
      const refused = { method: 'password', outcome: 'refused', reason: 'too_many_attempts' };
      const [counted, refusedBefore] = [await unauditedAttempts(s.t, strangers), await unauditedAttempts(s.t, refused)];
      // Four at a time: TESSERA_LOGINS_PER_SOURCE; each failure is answered at the failure time.
      const guess = (value: string) => login(s.t, org, '/authn/password', { handle: { type: 'email_address', value }, password: 'guess' });
      for (const batch of [0, 4]) await Promise.all([0, 1, 2, 3].map((i) => guess(`made-up-${batch + i}@x.example`)));
      await Promise.all([0, 1, 2, 3].map(() => guess('locked@x.example')));
      await guess('locked@x.example');
      // A judged guess (401) is answered at the failure time and doubles the delay from its start
      // (2 s, 4 s, 8 s, …), so on a slow machine a 429 run can outlast a delay and let one more be
      // judged (CI: 401 429 429 429 401 429…). The k-th judged guess needs 2^k − 2 s after the first.
      const statuses = [];
      const began = performance.now();
      for (let i = 0; i < 20; i++) statuses.push((await guess('locked@x.example')).status);
      const seconds = (performance.now() - began) / 1000;
      const judged = statuses.filter((status) => status === 401).length;
      assert.ok(
        statuses.every((status) => status === 401 || status === 429),
        statuses.join(' '),
      );
      assert.ok(judged >= 1 && judged <= Math.floor(Math.log2(seconds + 2)), `${statuses.join(' ')} in ${seconds} s`);
      assert.equal(await events(), 0);
      assert.ok((await unauditedAttempts(s.t, strangers)) >= counted + 8 + judged, 'the judged guesses are counted');
      assert.ok((await unauditedAttempts(s.t, refused)) >= refusedBefore + 20 - judged, 'the 429s are counted');
    },
  },
  {
    request: 'issue 24 review: 61 passkey login ceremonies from one address in a minute (each stores a challenge; 3,700 a second were stored)',
    expect: 'the 61st is 429 TOO_MANY_CEREMONIES with Retry-After',
    async check(s) {
      const org = await s.t.org();
      await configurePasskeys(s.t, org);
      for (let i = 0; i < 60; i++) assert.equal((await asBrowser(s.t, org, '/authn/webauthn/options', {})).status, 200);
      const over = await asBrowser(s.t, org, '/authn/webauthn/options', {});
      assert.deepEqual([over.status, errorCodes(over.body)], [429, ['TOO_MANY_CEREMONIES']]);
      assert.ok(Number(over.headers.get('retry-after')) >= 1);
    },
  },
  {
    request: 'issue 24 review: POST /console/admin/persons with email=ffx%ff%fe@ex.com, and with Content-Type: text/plain',
    expect:
      '400 naming the encoding, 415 naming application/x-www-form-urlencoded (U+FFFD was stored; the 415 said "must be application/json"), no person created',
    async check(s) {
      const admin = await consolePerson(s.t, s.org, { roles: ['admin'] });
      const agent = new ConsoleAgent(s.t.url);
      const { csrf } = await signInWithPassword(agent, s.org.orgId, admin);
      const before = (await s.t.call('GET', '/persons', { as: s.org })).body.meta.cursor_pagination.total_count;
      const form = { 'content-type': 'application/x-www-form-urlencoded' };
      const encoded = await agent.raw('POST', '/console/admin/persons', form, `email=ffx%ff%fe%40ex.com&_csrf=${csrf}`);
      assert.equal(encoded.status, 400);
      assert.match(encoded.html, /form: has a percent-encoding that is not UTF-8/);
      const typed = await agent.raw('POST', '/console/admin/persons', { 'content-type': 'text/plain' }, `email=a%40ex.com&_csrf=${csrf}`);
      assert.equal(typed.status, 415);
      assert.match(typed.html, /must be application\/x-www-form-urlencoded/);
      assert.equal((await s.t.call('GET', '/persons', { as: s.org })).body.meta.cursor_pagination.total_count, before);
    },
  },
];
