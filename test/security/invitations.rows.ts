import assert from 'node:assert/strict';
import { hashSecret, randomSecret } from '../../src/crypto/ids.ts';
import { addTotp, login, signInWithTwoFactors, twoFactorPerson } from '../helpers/authn.ts';
import { ConsoleAgent, consolePerson, signInWithPassword } from '../helpers/console.ts';
import { EXCHANGE, introspect, JWT_TYPE, token } from '../helpers/oauth.ts';
import { callService, errorCodes, startTestService } from '../helpers/service.ts';
import { startSmtpListener } from '../helpers/smtp.ts';
import { head, hostOf, sendRaw } from './harness.ts';
import {
  backendOf,
  CHOSEN,
  credentialCount,
  errorLine,
  invite,
  invitee,
  pathOf,
  redeem,
  tokenOf,
  withInterleavedService,
  withLoggingService,
} from './invitation-setups.ts';
import type { SecurityRow } from './rows.ts';

const DEAD_LINK = 'invitation: this link does not work: it was used, replaced by a newer one, or it expired; ask your administrator for a new one';

/** Runs `tasks` four at a time: the address's places among logins in flight (TESSERA_LOGINS_PER_SOURCE). */
async function fourAtATime<T>(tasks: (() => Promise<T>)[]): Promise<T[]> {
  const results: T[] = [];
  for (let i = 0; i < tasks.length; i += 4) results.push(...(await Promise.all(tasks.slice(i, i + 4).map((task) => task()))));
  return results;
}

/**
 * Issue 27 §1's invitations under a hostile caller: the link's token in every form, its page and
 * form, the password rules, who may make one, the sessions and tokens a reset must end, races,
 * the log and the email. Each row is a finding of that review (fixed, it says what it was) or an
 * attack the code withstood, kept so that it stays withstood.
 */
export const invitationRows: SecurityRow[] = [
  {
    request:
      'GET a working link as an absolute-form target (http://evil.example/console/invitation/<token>), percent-encoded (/console/%69nvitation/…, /%63onsole/…), and mistyped (//console/…, /CONSOLE/…, /console/./…)',
    expect: 'no log line of a real process at info level holds the token, nor the audit (each was logged as it came; the first four open the page)',
    async check() {
      await withLoggingService(async (url, as, printed) => {
        const person = await callService(url, 'POST', '/persons', { as, body: { handles: [{ type: 'email_address', value: 'ada@example.com' }] } });
        const made = await callService(url, 'POST', `/persons/${person.body.result.id}/invitations`, { as, body: { send: true } });
        const secret = tokenOf(made.body.result.url);
        const targets = [
          `http://evil.example/console/invitation/${secret}`,
          `/console/%69nvitation/${secret}`,
          `/%63onsole/invitation/${secret}`,
          `/console/invitation/${secret.replace(/[A-Za-z]/, (c) => `%${c.charCodeAt(0).toString(16)}`)}`,
          `//console/invitation/${secret}`,
          `/CONSOLE/invitation/${secret}`,
          `/console/./invitation/${secret}`,
          `/console/invitation%2F${secret}`,
        ];
        const statuses = [];
        for (const target of targets) statuses.push((await sendRaw(url, head('GET', target, [['Host', hostOf(url)]]))).status);
        assert.deepEqual(statuses.slice(0, 4), [200, 200, 200, 200], 'the router opens the page for these');
        await new Promise((resolve) => setTimeout(resolve, 200));
        assert.ok(printed().includes('/console/invitation/[redacted]'), 'the requests were logged, redacted');
        // Its last 30 characters: one target spells its first letter as %XX.
        assert.ok(!printed().includes(secret.slice(-30)), 'the token is in no log line');
        assert.ok(printed().includes(`/persons/${person.body.result.id}/invitations`), 'the API path of invitations is logged as it is');
        const audit = await callService(url, 'GET', '/audit/events?limit=100', { as });
        assert.ok(!JSON.stringify(audit.body).includes(secret), 'nor in the audit events');
      });
    },
  },
  {
    request:
      "an administrator's half-used reset link (password set, second factor owed), after a TOTP is added and deleted again (admin key) before anyone opens the link",
    expect: '404, this link does not work; the password set through it still signs in (the link opened again and reset their sign-in a second time)',
    async check(s) {
      const person = await consolePerson(s.t, s.org, { roles: ['admin'] });
      const url = await invite(s.t, s.org, person.id);
      assert.equal((await redeem(new ConsoleAgent(s.t.url), url)).answer.status, 303);
      const owed = await new ConsoleAgent(s.t.url).get(pathOf(url));
      assert.equal(owed.status, 200, 'open while the factor is owed, though the reset that set the password raised the generation');
      const { credentialId } = await addTotp(s.t, s.org, person.id);
      assert.equal((await s.t.call('DELETE', `/persons/${person.id}/credentials/${credentialId}`, { as: s.org })).status, 204);
      const hijacker = new ConsoleAgent(s.t.url);
      const page = await hijacker.get(pathOf(url));
      assert.deepEqual([page.status, errorLine(page)], [404, DEAD_LINK]);
      const { csrf } = await hijacker.get('/console/sign-in');
      const fields = { token: tokenOf(url), password: 'a hijacker chose this one', password_again: 'a hijacker chose this one' };
      const answer = await hijacker.post('/console/invitation', fields, csrf);
      assert.deepEqual([answer.status, errorLine(answer)], [404, DEAD_LINK]);
      const signedIn = await login(s.t, s.org, '/authn/password', { handle: { type: 'email_address', value: person.email }, password: CHOSEN });
      assert.equal(signedIn.status, 200, JSON.stringify(signedIn.body));
    },
  },
  {
    request:
      'GET /console/invitation/<token> altered: 42 or 44 characters, "=" padding (raw and %3D), one letter of other case, a non-ASCII or + last character, a trailing slash or dot, U+0000, dot segments, 300 characters',
    expect: '404: the "link does not work" page or the console\'s not-found page; never 200 or 5xx, and the real link still opens',
    async check(s) {
      const url = await invite(s.t, s.org, (await invitee(s.t, s.org)).id);
      const secret = tokenOf(url);
      const other = secret.replace(/[a-zA-Z]/, (c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase()));
      const cut = secret.slice(0, 42);
      const forms = [cut, `${secret}A`, `${secret}=`, `${secret}%3D`, other, `${cut}%C3%A9`, `${cut}+`, `${secret}/`, `${secret}.`, `${secret}%00`];
      forms.push('..%2F..%2Fhealthz', `${secret}/../../healthz`, 'A'.repeat(300));
      const answers = await fourAtATime(forms.map((form) => () => new ConsoleAgent(s.t.url).get(`/console/invitation/${form}`)));
      for (const [i, answer] of answers.entries()) {
        assert.equal(answer.status, 404, forms[i]);
        assert.ok(errorLine(answer) === DEAD_LINK || answer.html.includes('There is no console page at this address'), forms[i]);
      }
      assert.equal((await new ConsoleAgent(s.t.url).get(pathOf(url))).status, 200);
    },
  },
  {
    request: 'GET links that are malformed, unknown, expired, replaced by a newer one, used, and of a deleted person',
    expect: 'the same 404 page text for all, none answered sooner than the login failure time (1 s): a guess learns nothing of which tokens existed',
    async check(s) {
      const person = await invitee(s.t, s.org);
      const replaced = await invite(s.t, s.org, person.id);
      const used = await invite(s.t, s.org, person.id);
      assert.equal((await redeem(new ConsoleAgent(s.t.url), used)).answer.status, 303);
      const gone = await invitee(s.t, s.org);
      const ofDeleted = await invite(s.t, s.org, gone.id);
      await s.t.call('DELETE', `/persons/${gone.id}`, { as: s.org });
      const expired = randomSecret();
      const lapsed = await invitee(s.t, s.org);
      const now = Date.now();
      const row = {
        orgId: s.org.orgId,
        personId: lapsed.id,
        tokenHash: hashSecret(expired),
        reset: false,
        createdAt: now - 1000,
        expiresAt: now - 1,
        passwordSetAt: null,
      };
      assert.ok(await s.t.service.store.putInvitation(row));
      const paths = ['short', randomSecret(), expired, tokenOf(replaced), tokenOf(used), tokenOf(ofDeleted)].map((secret) => `/console/invitation/${secret}`);
      const timed = await fourAtATime(
        paths.map((path) => async () => {
          const began = performance.now();
          const page = await new ConsoleAgent(s.t.url).get(path);
          return { page, ms: performance.now() - began };
        }),
      );
      for (const { page, ms } of timed) {
        assert.deepEqual([page.status, errorLine(page)], [404, DEAD_LINK]);
        assert.ok(ms >= 990, `answered after ${ms} ms`);
      }
    },
  },
  {
    request: "a mail scanner's GET and HEAD of a link, twice each, before the person opens it",
    expect: '200 each time (no-store, no Referer sent on), nothing spent: the person then uses it once (303), after which it is 404',
    async check(s) {
      const url = await invite(s.t, s.org, (await invitee(s.t, s.org)).id);
      for (const method of ['GET', 'HEAD', 'GET', 'HEAD']) {
        const answer = await fetch(url, { method });
        assert.deepEqual([answer.status, answer.headers.get('cache-control'), answer.headers.get('referrer-policy')], [200, 'no-store', 'no-referrer'], method);
      }
      assert.equal((await redeem(new ConsoleAgent(s.t.url), url)).answer.status, 303);
      assert.equal((await fetch(url)).status, 404);
    },
  },
  {
    request:
      "POST /console/invitation with a working token and a good password: without _csrf and cookies, with a made-up _csrf, with another browser's, and as JSON with the page's token in X-CSRF-Token",
    expect: '403 CSRF_TOKEN_INVALID three times, 415; no password set; the link still works',
    async check(s) {
      const person = await invitee(s.t, s.org);
      const url = await invite(s.t, s.org, person.id);
      const fields = { token: tokenOf(url), password: CHOSEN, password_again: CHOSEN };
      const bare = await new ConsoleAgent(s.t.url).post('/console/invitation', { ...fields, _csrf: null }, '');
      const agent = new ConsoleAgent(s.t.url);
      const page = await agent.get(pathOf(url));
      const madeUp = await agent.post('/console/invitation', { ...fields, _csrf: 'x'.repeat(43) }, '');
      const theirs = (await new ConsoleAgent(s.t.url).get('/console/sign-in')).csrf;
      const foreign = await agent.post('/console/invitation', fields, theirs);
      const json = await agent.raw('POST', '/console/invitation', { 'content-type': 'application/json', 'x-csrf-token': page.csrf }, JSON.stringify(fields));
      assert.deepEqual([bare.status, madeUp.status, foreign.status, json.status], [403, 403, 403, 415]);
      assert.match(foreign.html, /form field _csrf: is missing or does not belong to this browser/);
      assert.equal(await credentialCount(s.t, s.org, person.id), 0);
      assert.equal((await redeem(new ConsoleAgent(s.t.url), url)).answer.status, 303);
    },
  },
  {
    request: "a browser holding another person's console session (signed in there, or a session cookie planted by them) redeems a link",
    expect: "that session ends (its cookie opens nothing), the browser gets a new cookie and is the invitee's",
    async check(s) {
      const planter = await consolePerson(s.t, s.org, { roles: [] });
      const agent = new ConsoleAgent(s.t.url);
      await signInWithPassword(agent, s.org.orgId, planter);
      const earlier = new Map(agent.jar);
      const person = await invitee(s.t, s.org);
      const { answer } = await redeem(agent, await invite(s.t, s.org, person.id));
      assert.deepEqual([answer.status, answer.location], [303, '/console/']);
      for (const [name, value] of earlier) assert.notEqual(agent.jar.get(name), value, name);
      const replay = new ConsoleAgent(s.t.url);
      for (const [name, value] of earlier) replay.jar.set(name, value);
      assert.equal((await replay.get('/console/security')).status, 303, "the planter's cookie opens nothing");
      const mine = await agent.get('/console/security');
      assert.equal(mine.status, 200);
      assert.ok(mine.html.includes(person.email) && !mine.html.includes(planter.email));
    },
  },
  {
    request: 'POST /console/invitation with a password of 513 "é" (1026 bytes), of 11 emoji (22 UTF-16 units), holding U+0000, and of 60 000 characters',
    expect: '400 naming the rule (bytes; characters counted as characters; control characters), 413 for the last; nothing set, the link still works',
    async check(s) {
      const person = await invitee(s.t, s.org);
      const url = await invite(s.t, s.org, person.id);
      const cases: [string, number, RegExp][] = [
        ['é'.repeat(513), 400, /password: must be at most 1024 bytes/],
        ['\u{1F600}'.repeat(11), 400, /password: must be at least 12 characters \(it has 11\)/],
        ['violet kettle\u0000 stairs', 400, /password: must not contain control characters/],
        ['x'.repeat(60_000), 413, /./],
      ];
      for (const [password, status, message] of cases) {
        const { answer } = await redeem(new ConsoleAgent(s.t.url), url, password);
        assert.equal(answer.status, status, password.slice(0, 20));
        assert.match(answer.html, message);
      }
      assert.equal(await credentialCount(s.t, s.org, person.id), 0);
      assert.equal((await redeem(new ConsoleAgent(s.t.url), url)).answer.status, 303);
    },
  },
  {
    request:
      "an invitation of organisation B's person asked for by A's admin key, by A's console administrator, by B's console verifier, by B's integration key, and by B's administrator's person JWT (two factors)",
    expect: '404, 404, 403, 403, 401; nothing made (B sees no open invitation, no person.invited event)',
    async check(s) {
      const b = await s.t.org();
      const target = await invitee(s.t, b);
      const path = `/persons/${target.id}/invitations`;
      const byKeyOfA = await s.t.call('POST', path, { as: s.org, body: {} });
      const admin = await consolePerson(s.t, s.org, { roles: ['admin'] });
      const agent = new ConsoleAgent(s.t.url);
      const page = await signInWithPassword(agent, s.org.orgId, admin);
      const byConsoleOfA = await agent.post(`/console/admin/persons/${target.id}/invitation`, { lifetime_hours: '24' }, page.csrf);
      const verifier = await consolePerson(s.t, b, { roles: ['verifier'] });
      const helpdesk = new ConsoleAgent(s.t.url);
      const desk = await signInWithPassword(helpdesk, b.orgId, verifier);
      const byVerifier = await helpdesk.post(`/console/admin/persons/${target.id}/invitation`, { lifetime_hours: '24' }, desk.csrf);
      const key = await s.t.call('POST', '/organizations/api-keys', { as: b, body: { name: 'integration', kind: 'integration' } });
      const byIntegration = await s.t.call('POST', path, { as: { 'service-orgid': b.orgId, 'service-api-key': key.body.result.api_key }, body: {} });
      const jwt = await signInWithTwoFactors(s.t, b, await twoFactorPerson(s.t, b, { roles: ['admin'] }));
      const byPerson = await s.t.call('POST', path, { as: { 'service-orgid': b.orgId, authorization: `Bearer ${jwt}` }, body: {} });
      assert.deepEqual([byKeyOfA.status, byConsoleOfA.status, byVerifier.status, byIntegration.status, byPerson.status], [404, 404, 403, 403, 401]);
      assert.equal(await s.t.service.store.getInvitationOfPerson(b.orgId, target.id, Date.now()), undefined);
      assert.equal((await s.t.call('GET', '/audit/events?type=person.invited', { as: b })).body.result.length, 0);
    },
  },
  {
    request: 'POST /persons/{id}/invitations with Host: evil.example, X-Forwarded-Host, X-Forwarded-Proto and Forwarded naming another host',
    expect: "201 with the link on the issuer (the service's own URL), never a host the request named",
    async check(s) {
      const person = await invitee(s.t, s.org);
      const answer = await sendRaw(
        s.t.url,
        head('POST', `/persons/${person.id}/invitations`, [
          ['Host', 'evil.example'],
          ['X-Forwarded-Host', 'evil2.example'],
          ['X-Forwarded-Proto', 'https'],
          ['Forwarded', 'host=evil3.example;proto=https'],
          ['Service-OrgID', s.org.orgId],
          ['Service-API-Key', s.org.apiKey],
          ['Content-Type', 'application/json'],
          ['Content-Length', '2'],
        ]),
        '{}',
      );
      assert.equal(answer.status, 201, answer.body);
      assert.match(JSON.parse(answer.body).result.url, new RegExp(`^${s.t.url}/console/invitation/[A-Za-z0-9_-]{43}$`));
    },
  },
  {
    request:
      'an administrator signed in by their invitation (password only) asks for /console/, the admin pages, /console/verify, /console/security, and posts an invitation of another person',
    expect: 'each 303 to /console/enrol (403 as JSON), nothing made; only the enrolment page is 200',
    async check(s) {
      const admin = await invitee(s.t, s.org, { roles: ['admin'] });
      const agent = new ConsoleAgent(s.t.url);
      const { answer } = await redeem(agent, await invite(s.t, s.org, admin.id));
      assert.equal(answer.status, 303);
      for (const path of [
        '/console/',
        '/console/admin',
        '/console/admin/persons',
        `/console/admin/persons/${admin.id}`,
        '/console/verify',
        '/console/security',
      ]) {
        assert.equal((await agent.get(path)).location, '/console/enrol', path);
      }
      const enrol = await agent.get('/console/enrol');
      assert.equal(enrol.status, 200);
      const other = await invitee(s.t, s.org);
      const posted = await agent.post(`/console/admin/persons/${other.id}/invitation`, { lifetime_hours: '24' }, enrol.csrf);
      assert.equal(posted.location, '/console/enrol');
      const asJson = await agent.raw('GET', '/console/admin/persons', { accept: 'application/json' });
      assert.equal(asJson.status, 403);
      assert.equal(await s.t.service.store.getInvitationOfPerson(s.org.orgId, other.id, Date.now()), undefined);
    },
  },
  {
    request: 'a person JWT (two factors) and a console session from before a reset, used after the person redeems the reset link',
    expect:
      "the JWT: 401 at the person's own door (TOTP enrolment), refused as a token-exchange subject, inactive at introspection; the session's cookie opens nothing",
    async check(s) {
      const person = await twoFactorPerson(s.t, s.org, { console: true });
      const jwt = await signInWithTwoFactors(s.t, s.org, person);
      const theirs = new ConsoleAgent(s.t.url);
      await signInWithPassword(theirs, s.org.orgId, person);
      assert.equal((await redeem(new ConsoleAgent(s.t.url), await invite(s.t, s.org, person.id))).answer.status, 303);
      const own = await s.t.call('POST', '/authn/totp/enrolment', { as: { 'service-orgid': s.org.orgId, authorization: `Bearer ${jwt}` }, body: {} });
      assert.deepEqual([own.status, errorCodes(own.body)], [401, ['UNAUTHENTICATED']]);
      assert.match(own.body.errors[0].message, /was issued before .* a credential removed/);
      const exchanged = await token(s.t, { grant_type: EXCHANGE, subject_token: jwt, subject_token_type: JWT_TYPE, requested_token_type: JWT_TYPE }, s.client);
      assert.equal(exchanged.status, 400, JSON.stringify(exchanged.body));
      assert.match(exchanged.body.error_description, /was issued before .* a credential removed/);
      assert.deepEqual((await introspect(s.t, jwt, s.org)).body, { active: false });
      assert.equal((await theirs.get('/console/security')).status, 303);
    },
  },
  {
    request:
      'a redemption whose password is being hashed while another request replaces the link with a new invitation, deletes the person, or makes them an administrator',
    expect: '404 and nothing set (the new link works); 404, no 500; the session it opens is kept to the enrolment page',
    async check(s) {
      await withInterleavedService(s, async ({ t, org, meanwhile }) => {
        const replacedPerson = await invitee(t, org);
        const replaced = await invite(t, org, replacedPerson.id);
        let fresh = '';
        meanwhile(async () => {
          fresh = await invite(t, org, replacedPerson.id);
        });
        assert.equal((await redeem(new ConsoleAgent(t.url), replaced)).answer.status, 404);
        assert.equal(await credentialCount(t, org, replacedPerson.id), 0);
        assert.equal((await redeem(new ConsoleAgent(t.url), fresh)).answer.status, 303);

        const deleted = await invitee(t, org);
        const link = await invite(t, org, deleted.id);
        meanwhile(async () => {
          assert.equal((await t.call('DELETE', `/persons/${deleted.id}`, { as: org })).status, 204);
        });
        const gone = (await redeem(new ConsoleAgent(t.url), link)).answer;
        assert.deepEqual([gone.status, errorLine(gone)], [404, DEAD_LINK]);

        const promoted = await invitee(t, org);
        const agent = new ConsoleAgent(t.url);
        const promotedLink = await invite(t, org, promoted.id);
        meanwhile(async () => {
          assert.equal((await t.call('PATCH', `/persons/${promoted.id}`, { as: org, body: { roles: ['admin'] } })).status, 200);
        });
        assert.equal((await redeem(agent, promotedLink)).answer.status, 303);
        assert.equal((await agent.get('/console/admin/persons')).location, '/console/enrol');
      });
    },
  },
  {
    request: 'five POST /console/invitation at once from one address, each with a made-up token and its own browser',
    expect: 'one is 429 TOO_MANY_LOGINS_IN_FLIGHT at once; the other four are the 404 of a link that does not work',
    async check(s) {
      const agents = [0, 1, 2, 3, 4].map(() => new ConsoleAgent(s.t.url));
      const forms = await Promise.all(agents.map((agent) => agent.get('/console/sign-in')));
      const fields = { token: randomSecret(), password: CHOSEN, password_again: CHOSEN };
      const answers = await Promise.all(agents.map((agent, i) => agent.post('/console/invitation', fields, forms[i]!.csrf)));
      assert.deepEqual(answers.map((answer) => answer.status).sort(), [404, 404, 404, 404, 429]);
      assert.ok(answers.filter((answer) => answer.status === 404).every((answer) => errorLine(answer) === DEAD_LINK));
    },
  },
  {
    request: 'an invitation sent (send: true) for an organisation whose email_sender_name is Acme" <attacker@evil.example>, "x',
    expect:
      "one message, to the person only (envelope and To); From the organisation's address, that text only its quoted name; the link in the body, not the subject",
    async check(s) {
      const smtp = await startSmtpListener();
      const t = await startTestService(backendOf(s), { TESSERA_SMTP_URL: smtp.url, TESSERA_SMTP_FROM: 'tessera@example.com' });
      try {
        const org = await t.org();
        const name = 'Acme" <attacker@evil.example>, "x';
        assert.equal((await t.call('PATCH', '/organizations/config', { as: org, body: { email_sender_name: name } })).status, 200);
        const person = await invitee(t, org);
        const made = await t.call('POST', `/persons/${person.id}/invitations`, { as: org, body: { send: true } });
        assert.equal(made.status, 201, JSON.stringify(made.body));
        const mail = await smtp.nextMessage();
        assert.deepEqual(mail.rcptTo, [person.email]);
        assert.equal(mail.headers.get('to'), person.email);
        assert.match(mail.headers.get('from') ?? '', /^".*" <tessera@example\.com>$/);
        assert.equal(mail.headers.get('bcc'), undefined);
        assert.ok(mail.text.includes(made.body.result.url));
        assert.ok(!(mail.headers.get('subject') ?? '').includes(tokenOf(made.body.result.url)));
        assert.equal(smtp.messages.length, 1);
      } finally {
        await t.close();
        await smtp.close();
      }
    },
  },
];
