import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { consoleSessionDefaults } from '../../src/config/defaults.ts';
import { backends } from '../helpers/backends.ts';
import { ConsoleAgent, consolePerson, signInWithPassword } from '../helpers/console.ts';
import { startFrozenService, type TestClock } from '../helpers/frozen-service.ts';
import type { TestOrg, TestService } from '../helpers/service.ts';

const FROZEN = Date.UTC(2031, 4, 6, 7, 8, 0);
const { idleMs, absoluteMs, touchEveryMs } = consoleSessionDefaults;

for (const backend of backends()) {
  describe(`Console sessions end on time, on ${backend.name}`, () => {
    const clock: TestClock = { at: FROZEN };
    let t: TestService;
    let org: TestOrg;

    before(async () => {
      t = await startFrozenService(backend, clock);
      org = await t.org();
    });
    after(() => t.close());

    async function signedIn(): Promise<{ agent: ConsoleAgent; csrf: string }> {
      clock.at = FROZEN;
      const agent = new ConsoleAgent(t.url);
      const page = await signInWithPassword(agent, org.orgId, await consolePerson(t, org));
      return { agent, csrf: page.csrf };
    }

    it('ends a session idle for 30 minutes, and keeps one in use', async () => {
      const { agent } = await signedIn();
      clock.at += idleMs - touchEveryMs;
      assert.equal((await agent.get('/console/security')).status, 200, 'in use: its activity is recorded');
      clock.at += idleMs - 1;
      assert.equal((await agent.get('/console/security')).status, 200);
      clock.at += idleMs;
      const ended = await agent.get('/console/security');
      assert.equal(ended.status, 303);
      assert.equal(ended.location, '/console/sign-in?notice=expired');
      assert.equal(agent.jar.has('__Host-tessera-console'), false, 'the dead cookie is cleared');
    });

    it('ends a session 12 hours after sign-in however busy it is', async () => {
      const { agent } = await signedIn();
      for (let at = FROZEN; at < FROZEN + absoluteMs - idleMs; at += idleMs / 2) {
        clock.at = at;
        assert.equal((await agent.get('/console/security')).status, 200);
      }
      clock.at = FROZEN + absoluteMs;
      assert.equal((await agent.get('/console/security')).location, '/console/sign-in?notice=expired');
    });

    it('sends a form posted after its session ended back to sign-in, not to a CSRF refusal, and changes nothing', async () => {
      const { agent, csrf } = await signedIn();
      clock.at += idleMs;
      const posted = await agent.post('/console/sign-out-everywhere', {}, csrf);
      assert.equal(posted.status, 303);
      assert.equal(posted.location, '/console/sign-in?notice=expired');
      const form = await agent.follow(posted);
      assert.match(form.html, /Your session ended; sign in again\./);
    });

    it("answers the console script's JSON calls without a session with 401, not a redirect", async () => {
      const agent = new ConsoleAgent(t.url);
      const form = await agent.get('/console/sign-in');
      const answer = await agent.postJson('/console/security/passkeys/options', {}, form.csrf);
      assert.equal(answer.status, 401);
      assert.equal(answer.body.errors[0].code, 'UNAUTHENTICATED');
    });

    it('regression: a JSON body with numbers on a form route got 500, then its fields read as missing; now it is 415, a form route takes forms', async () => {
      const agent = new ConsoleAgent(t.url);
      const form = await agent.get('/console/sign-in');
      const answer = await fetch(`${t.url}/console/sign-in`, {
        method: 'POST',
        headers: { cookie: agent.cookieHeader, 'content-type': 'application/json' },
        body: JSON.stringify({ organization: 1, email: ['x'], password: { a: 1 }, _csrf: form.csrf }),
      });
      assert.equal(answer.status, 415);
      assert.match(await answer.text(), /header Content-Type: must be application\/x-www-form-urlencoded for POST \/console\/sign-in/);
    });
  });
}
