import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { FREE_ATTEMPTS } from '../../src/authn/attempt-policy.ts';
import { login } from '../helpers/authn.ts';
import { backends } from '../helpers/backends.ts';
import { ConsoleAgent, consolePerson, signInWithPassword } from '../helpers/console.ts';
import { startTestService, type TestOrg, type TestService } from '../helpers/service.ts';

for (const backend of backends()) {
  describe(`Console sign-in with a password, on ${backend.name}`, () => {
    let t: TestService;
    let org: TestOrg;

    before(async () => {
      // The shortest failure time: at the default 1 s, answering the fifth failure takes the 1 s delay it
      // asks for, and the lockout test's next attempt would be allowed rather than wait its turn.
      t = await startTestService(backend, { TESSERA_LOGIN_FAILURE_TIME: '100' });
      org = await t.org();
    });
    after(() => t.close());

    it('signs a console person in, sets a Secure HttpOnly SameSite=Strict __Host- cookie and lands on their page', async () => {
      const person = await consolePerson(t, org);
      const agent = new ConsoleAgent(t.url);
      const form = await agent.get('/console/sign-in');
      assert.match(form.headers.get('content-security-policy') ?? '', /script-src 'self'/);
      const answer = await agent.post('/console/sign-in', { organization: org.orgId, email: person.email, password: person.password }, form.csrf);
      assert.equal(answer.status, 303);
      const cookie = answer.headers.getSetCookie().find((c) => c.startsWith('__Host-tessera-console='));
      assert.ok(cookie, 'a session cookie was set');
      assert.match(cookie, /HttpOnly/);
      assert.match(cookie, /Secure/);
      assert.match(cookie, /SameSite=Strict/);
      assert.equal(answer.location, '/console/sign-in/code', 'a verifier signs in with two factors: the password, then a code');
      const codePage = await agent.follow(answer);
      const second = await agent.post('/console/sign-in/code', { code: person.recoveryCodes.shift()! }, codePage.csrf);
      assert.equal(second.status, 303);
      assert.notEqual(
        second.headers.getSetCookie().find((c) => c.startsWith('__Host-tessera-console=')),
        cookie,
        'a new session id at each step',
      );
      const landed = await agent.follow(await agent.follow(second));
      assert.equal(landed.status, 200);
      assert.match(landed.html, /<h1>Verify a caller<\/h1>/);
    });

    it('rotates the session id at sign-in: the cookie held before is not the one after', async () => {
      const person = await consolePerson(t, org);
      const agent = new ConsoleAgent(t.url);
      await signInWithPassword(agent, org.orgId, person);
      const first = agent.jar.get('__Host-tessera-console');
      const form = await agent.get('/console/sign-in?org=x');
      assert.equal(form.status, 303, 'a signed-in browser is sent on from the sign-in page');
      const again = await new ConsoleAgent(t.url).get('/console/sign-in');
      const second = new ConsoleAgent(t.url);
      second.jar.set('__Host-tessera-console', first!);
      const answer = await second.post(
        '/console/sign-in',
        { organization: org.orgId, email: person.email, password: person.password },
        (await second.get('/console/verify')).csrf,
      );
      assert.equal(answer.status, 303);
      assert.notEqual(second.jar.get('__Host-tessera-console'), first);
      assert.equal((await agent.get('/console/verify')).status, 303, 'the session replaced at sign-in is ended');
      assert.ok(again.csrf);
    });

    it('refuses a person who is not of the console, after their password, with 403 and no session', async () => {
      const person = await consolePerson(t, org, { console: false });
      const agent = new ConsoleAgent(t.url);
      const form = await agent.get('/console/sign-in');
      const answer = await agent.post('/console/sign-in', { organization: org.orgId, email: person.email, password: person.password }, form.csrf);
      assert.equal(answer.status, 403);
      assert.match(answer.html, /only members of the organisation&#39;s console may sign in/);
      assert.equal(agent.jar.has('__Host-tessera-console'), false);
    });

    it('refuses a form without its CSRF token (403) and signs nobody in', async () => {
      const person = await consolePerson(t, org);
      const agent = new ConsoleAgent(t.url);
      await agent.get('/console/sign-in');
      const answer = await agent.post('/console/sign-in', { organization: org.orgId, email: person.email, password: person.password, _csrf: null }, '');
      assert.equal(answer.status, 403);
      assert.match(answer.html, /_csrf: is missing or does not belong to this browser/);
      assert.equal(agent.jar.has('__Host-tessera-console'), false);
    });

    it('names the field and the rule on a bad form, and keeps what was typed', async () => {
      const agent = new ConsoleAgent(t.url);
      const form = await agent.get('/console/sign-in');
      const answer = await agent.post('/console/sign-in', { organization: 'no-such-org', email: 'ada@example.com', password: 'x' }, form.csrf);
      assert.equal(answer.status, 400);
      assert.match(answer.html, /organization: no organisation has this name or id/);
      assert.match(answer.html, /value="ada@example.com"/);
    });

    it('counts failed sign-ins toward the same lockout as the API', async () => {
      const person = await consolePerson(t, org);
      for (let i = 0; i < FREE_ATTEMPTS; i++) {
        const refused = await login(t, org, '/authn/password', { handle: { type: 'email_address', value: person.email }, password: 'wrong' });
        assert.equal(refused.status, 401);
      }
      const agent = new ConsoleAgent(t.url);
      const form = await agent.get('/console/sign-in');
      const answer = await agent.post('/console/sign-in', { organization: org.orgId, email: person.email, password: person.password }, form.csrf);
      assert.equal(answer.status, 429, 'the right password waits its turn like any other attempt');
      assert.ok(answer.headers.get('retry-after'));
    });

    it('makes a session cookie copied before sign-out useless after it', async () => {
      const person = await consolePerson(t, org);
      const agent = new ConsoleAgent(t.url);
      const page = await signInWithPassword(agent, org.orgId, person);
      const stolen = agent.jar.get('__Host-tessera-console')!;
      const out = await agent.post('/console/sign-out', {}, page.csrf);
      assert.equal(out.status, 303);
      const thief = new ConsoleAgent(t.url);
      thief.jar.set('__Host-tessera-console', stolen);
      const answer = await thief.get('/console/verify');
      assert.equal(answer.status, 303);
      assert.equal(answer.location, '/console/sign-in?notice=expired');
    });
  });
}
