import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { URI } from 'otpauth';
import { RECENT_SIGN_IN_MS } from '../../src/authn/assurance.ts';
import { TICKET_MAX_ATTEMPTS } from '../../src/authn/second-factor.ts';
import { SoftwareAuthenticator } from '../../src/dev/software-authenticator.ts';
import type { Store } from '../../src/store/store.ts';
import { importCredential, signInWithTwoFactors, twoFactorPerson } from '../helpers/authn.ts';
import { backends } from '../helpers/backends.ts';
import { ConsoleAgent, type ConsolePage, type ConsolePerson, consolePerson, signInWithPassword } from '../helpers/console.ts';
import { startFrozenService, type TestClock } from '../helpers/frozen-service.ts';
import { EXCHANGE, JWT_TYPE, registerClient, token } from '../helpers/oauth.ts';
import type { TestOrg, TestService } from '../helpers/service.ts';
import { configurePasskeys, importParams, ORIGIN } from '../methods/passkey/passkeys.ts';

const FROZEN = Date.UTC(2031, 4, 6, 7, 8, 0);
const COOKIE = '__Host-tessera-console';

for (const backend of backends()) {
  describe(`Console sign-in with two factors, and what ends it (design §5), on ${backend.name}`, () => {
    const clock: TestClock = { at: FROZEN };
    let t: TestService;
    let org: TestOrg;
    let orgName: string;

    before(async () => {
      t = await startFrozenService(backend, clock);
      org = await t.org();
      orgName = (await t.service.store.getOrganization(org.orgId))!.name;
      await configurePasskeys(t, org);
    });
    after(() => t.close());

    /** Signs `person` in with their password (and a recovery code when a second factor is owed); the agent and its last page. */
    const signedIn = async (person: ConsolePerson) => {
      const agent = new ConsoleAgent(t.url);
      const page = await signInWithPassword(agent, org.orgId, person);
      return { agent, page };
    };
    const passwordStep = async (agent: ConsoleAgent, person: ConsolePerson): Promise<ConsolePage> => {
      const form = await agent.get('/console/sign-in');
      return agent.post('/console/sign-in', { organization: org.orgId, email: person.email, password: person.password }, form.csrf);
    };
    const pick = (page: ConsolePage) => [page.status, page.location];
    const apiKeys = async () => (await t.call('GET', '/organizations/api-keys', { as: org })).body.result.length as number;

    it('regression: a password-only administrator reached every page; now only the enrolment page, until a factor is added', async () => {
      clock.at = FROZEN;
      const admin = await consolePerson(t, org, { roles: ['admin', 'verifier'], secondFactor: false });
      const { agent, page } = await signedIn(admin);
      assert.match(page.html, /<h1>Add a second factor<\/h1>/);
      assert.doesNotMatch(page.html, /href="\/console\/admin"|href="\/console\/security"/, 'no way elsewhere from its navigation');
      for (const path of ['/console/verify', '/console/admin', '/console/admin/api-keys', '/console/security', '/console/']) {
        const refused = await agent.get(path);
        assert.deepEqual([refused.status, refused.location], [303, '/console/enrol'], path);
      }
      const keysBefore = await apiKeys();
      const post = await agent.post('/console/admin/api-keys', { name: 'sneaky', kind: 'admin' }, page.csrf);
      assert.deepEqual([post.status, post.location], [303, '/console/enrol']);
      assert.equal(await apiKeys(), keysBefore, 'nothing was made');
      const json = await agent.postJson('/console/confirm/passkey/options', {}, page.csrf);
      assert.deepEqual([json.status, json.body.errors[0].code], [403, 'FORBIDDEN']);

      const started = await agent.post('/console/security/totp', {}, page.csrf);
      assert.equal(started.status, 200);
      const secret = /id="totp-secret">([A-Z2-7]+)</.exec(started.html)![1]!;
      const enrolmentId = /name="enrolment_id" value="([^"]+)"/.exec(started.html)![1]!;
      const before = agent.jar.get(COOKIE);
      const code = URI.parse(`otpauth://totp/x?secret=${secret}`).generate({ timestamp: clock.at });
      const confirmed = await agent.post('/console/security/totp/confirm', { enrolment_id: enrolmentId, code }, started.csrf);
      assert.deepEqual([confirmed.status, confirmed.location], [303, '/console/security?notice=totp-added']);
      assert.notEqual(agent.jar.get(COOKIE), before, 'a new session id now that it proves more');
      assert.equal((await agent.get('/console/admin/api-keys')).status, 200, 'the console opens');
      const session = await t.service.store.getConsoleSession((await import('../../src/crypto/ids.ts')).hashSecret(agent.jar.get(COOKIE)!), clock.at);
      assert.deepEqual(session?.amr, ['pwd', 'otp', 'mfa']);
    });

    it('completes a password with the person’s passkey when that is their second factor', async () => {
      clock.at = FROZEN;
      const person = await consolePerson(t, org, { roles: ['verifier'], secondFactor: false });
      const authenticator = new SoftwareAuthenticator();
      await importCredential(t, org, person.id, 'public-key', importParams(authenticator));
      const agent = new ConsoleAgent(t.url);
      const answer = await passwordStep(agent, person);
      assert.equal(answer.location, '/console/sign-in/code');
      const page = await agent.follow(answer);
      assert.match(page.html, /<h1>Confirm with your passkey<\/h1>/);
      assert.doesNotMatch(page.html, /name="code"/, 'no code field: the person has no authenticator app');
      const started = await agent.postJson('/console/sign-in/code/passkey/options', {}, page.csrf);
      assert.equal(started.status, 200, JSON.stringify(started.body));
      const response = authenticator.assert({ challenge: started.body.options.challenge, rpId: started.body.options.rpId, origin: ORIGIN });
      const done = await agent.postJson('/console/sign-in/code/passkey', { challenge_id: started.body.challenge_id, response }, page.csrf);
      assert.deepEqual([done.status, done.body], [200, { location: '/console/' }]);
      assert.equal((await agent.get('/console/verify')).status, 200);
    });

    it(`ends a pending sign-in after ${TICKET_MAX_ATTEMPTS} wrong codes: back to sign-in, the organisation kept`, async () => {
      clock.at = FROZEN;
      const person = await consolePerson(t, org);
      const agent = new ConsoleAgent(t.url);
      let page = await agent.follow(await passwordStep(agent, person));
      for (let n = 1; n <= TICKET_MAX_ATTEMPTS; n++) {
        page = await agent.post('/console/sign-in/code', { code: '00000000' }, page.csrf);
        assert.equal(page.status, 401);
        assert.match(page.html, /the second factor does not match/);
      }
      const ended = await agent.post('/console/sign-in/code', { code: person.recoveryCodes[0]! }, page.csrf);
      assert.deepEqual([ended.status, ended.location], [303, `/console/sign-in?notice=second-factor-ended&org=${encodeURIComponent(orgName)}`]);
      const form = await agent.follow(ended);
      assert.match(form.html, /That sign-in was not completed/);
      assert.match(form.html, new RegExp(`id="organization" name="organization" value="${orgName}"`));
    });

    it('refuses the code of a step before the last one used, though still inside the window: the step is replayed', async () => {
      clock.at = FROZEN;
      const person = await consolePerson(t, org);
      const key = URI.parse(person.keyUri!);
      const current = key.generate({ timestamp: clock.at });
      const earlier = key.generate({ timestamp: clock.at - 30_000 });
      assert.notEqual(earlier, current);
      const codeStep = async (who: ConsolePerson, code: string) => {
        const agent = new ConsoleAgent(t.url);
        const page = await agent.follow(await passwordStep(agent, who));
        return agent.post('/console/sign-in/code', { code }, page.csrf);
      };
      // Another person with the same key: the earlier step alone is accepted at this clock.
      const control = await consolePerson(t, org, { secondFactor: false });
      await importCredential(t, org, control.id, 'totp', { key_uri: person.keyUri, recovery_codes_total: 10, unused_recovery_codes: [] });
      assert.deepEqual(pick(await codeStep(control, earlier)), [303, '/console/'], 'inside the window');
      assert.deepEqual(pick(await codeStep(person, current)), [303, '/console/'], 'the current step is spent');
      const refused = await codeStep(person, earlier);
      assert.equal(refused.status, 401, 'a step before the last one used is never accepted');
      assert.match(refused.html, /the second factor does not match/);
      const events = (await t.call('GET', '/audit/events?type=authn.attempt&limit=100', { as: org })).body.result.map((e: any) => e.data);
      const failures = events.filter((e: any) => e.person_id === person.id && e.outcome === 'failure').map((e: any) => [e.method, e.reason]);
      assert.deepEqual(failures, [['totp', 'replayed']]);
    });

    it('keeps the organisation on the sign-in page after signing out', async () => {
      clock.at = FROZEN;
      const { agent, page } = await signedIn(await consolePerson(t, org));
      const out = await agent.post('/console/sign-out', {}, page.csrf);
      assert.equal(out.location, `/console/sign-in?notice=signed-out&org=${encodeURIComponent(orgName)}`);
      assert.match((await agent.follow(out)).html, new RegExp(`value="${orgName}"`));
    });

    it('asks for the password again before a sensitive action once the sign-in is ten minutes old', async () => {
      clock.at = FROZEN;
      const admin = await consolePerson(t, org, { roles: ['admin'] });
      const { agent } = await signedIn(admin);
      let page = await agent.get('/console/admin/api-keys');
      clock.at += RECENT_SIGN_IN_MS - 1_000;
      assert.equal((await agent.post('/console/admin/api-keys', { name: 'fresh', kind: 'integration' }, page.csrf)).status, 200, 'within ten minutes');

      clock.at += 2_000;
      const keysBefore = await apiKeys();
      const asked = await agent.post('/console/admin/api-keys', { name: 'late', kind: 'integration' }, page.csrf);
      assert.deepEqual([asked.status, asked.location], [303, '/console/confirm?next=%2Fconsole%2Fadmin%2Fapi-keys']);
      assert.equal(await apiKeys(), keysBefore, 'nothing was made');
      const confirm = await agent.follow(asked);
      assert.match(confirm.html, /<h1>Confirm it is you<\/h1>/);
      const wrong = await agent.post('/console/confirm', { next: '/console/admin/api-keys', password: 'not it' }, confirm.csrf);
      assert.equal(wrong.status, 401);
      assert.match(wrong.html, /The password does not match/);
      const right = await agent.post('/console/confirm', { next: '/console/admin/api-keys', password: admin.password }, confirm.csrf);
      assert.deepEqual([right.status, right.location], [303, '/console/admin/api-keys?notice=confirmed']);
      page = await agent.follow(right);
      assert.match(page.html, /Confirmed: for the next 10 minutes/);
      assert.equal((await agent.post('/console/admin/api-keys', { name: 'late', kind: 'integration' }, page.csrf)).status, 200);
    });

    it('asks again for role changes and passkey settings, not for other settings; confirms with a passkey too', async () => {
      clock.at = FROZEN;
      const admin = await consolePerson(t, org, { roles: ['admin'] });
      const authenticator = new SoftwareAuthenticator();
      await importCredential(t, org, admin.id, 'public-key', importParams(authenticator));
      const { agent, page } = await signedIn(admin);
      const other = await consolePerson(t, org, { roles: [] });
      clock.at += RECENT_SIGN_IN_MS + 1_000;
      const roles = await agent.post(`/console/admin/persons/${other.id}/access`, { roles: 'verifier', console: 'yes' }, page.csrf);
      assert.equal(roles.location, `/console/confirm?next=${encodeURIComponent(`/console/admin/persons/${other.id}`)}`);
      const membership = await agent.post(`/console/admin/persons/${other.id}/access`, { console: 'yes' }, page.csrf);
      assert.equal(membership.location, `/console/admin/persons/${other.id}?notice=saved`, 'the same roles: nothing sensitive');

      const settings = await agent.get('/console/admin/organization');
      const fields = (rpId: string) => ({
        token_lifetime_ceiling: '1800',
        webauthn_rp_id: rpId,
        webauthn_origins: ORIGIN,
        svid_jwks_urls: '',
        allowed_spiffe_ids: '',
        email_sender: '',
        email_sender_name: '',
      });
      const lifetime = await agent.post('/console/admin/organization', fields('example.com'), settings.csrf);
      assert.equal(lifetime.location, '/console/admin/organization?notice=saved');
      const passkeys = await agent.post('/console/admin/organization', fields('login.example.com'), settings.csrf);
      assert.equal(passkeys.location, '/console/confirm?next=%2Fconsole%2Fadmin%2Forganization');

      const confirm = await agent.follow(passkeys);
      assert.match(confirm.html, /data-finish-url="\/console\/confirm\/passkey"/);
      const started = await agent.postJson('/console/confirm/passkey/options', {}, confirm.csrf);
      assert.deepEqual(
        started.body.options.allowCredentials.map((c: { id: string }) => c.id),
        [authenticator.credentialId],
      );
      const response = authenticator.assert({ challenge: started.body.options.challenge, rpId: started.body.options.rpId, origin: ORIGIN });
      const done = await agent.postJson(
        '/console/confirm/passkey',
        { challenge_id: started.body.challenge_id, response, next: '/console/admin/organization' },
        confirm.csrf,
      );
      assert.deepEqual([done.status, done.body], [200, { location: '/console/admin/organization?notice=confirmed' }]);
      const now = await agent.post('/console/admin/organization', fields('example.com'), settings.csrf);
      assert.equal(now.location, '/console/admin/organization?notice=saved');
    });

    it('regression: a password-only session of a person without a role outlived the second factor they added elsewhere, and could remove it', async () => {
      clock.at = FROZEN;
      const person = await consolePerson(t, org, { roles: [], secondFactor: false });
      const { agent: attacker, page } = await signedIn(person);
      assert.equal((await attacker.get('/console/security')).status, 200, 'a password is enough while nothing else is held');
      const { credentialId } = await (await import('../helpers/authn.ts')).addTotp(t, org, person.id);
      const removal = await attacker.post(`/console/security/totp/${credentialId}/remove`, {}, page.csrf);
      assert.deepEqual([removal.status, removal.location], [303, '/console/sign-in?notice=expired'], 'the session no longer proves enough');
      assert.equal((await attacker.get('/console/security')).location, '/console/sign-in', 'and it is gone');
      const held = (await t.call('GET', `/persons/${person.id}/credentials`, { as: org })).body.result.map((c: { type: string }) => c.type);
      assert.ok(held.includes('totp'), 'the factor is still there');
    });

    it('asks for a confirmation before creating a person with roles, as for a change of roles', async () => {
      clock.at = FROZEN;
      const { agent, page } = await signedIn(await consolePerson(t, org, { roles: ['admin'] }));
      clock.at += RECENT_SIGN_IN_MS + 1_000;
      const email = `new.${Math.random().toString(36).slice(2)}@example.com`;
      const withRole = await agent.post('/console/admin/persons', { email, roles: 'admin', console: 'yes' }, page.csrf);
      assert.deepEqual([withRole.status, withRole.location], [303, '/console/confirm?next=%2Fconsole%2Fadmin%2Fpersons']);
      const without = await agent.post('/console/admin/persons', { email, console: 'yes' }, page.csrf);
      assert.equal(without.status, 303);
      assert.match(without.location ?? '', /^\/console\/admin\/persons\/per_\w+\?notice=created$/);
    });

    it('sends the confirmation back to a console page only', async () => {
      clock.at = FROZEN;
      const { agent } = await signedIn(await consolePerson(t, org, { roles: [] }));
      for (const next of ['//evil.example/console/', 'https://evil.example/', '/console/\\\\evil', '/elsewhere']) {
        const page = await agent.get(`/console/confirm?next=${encodeURIComponent(next)}`);
        assert.match(page.html, /name="next" value="\/console\/"/, next);
      }
    });

    it('regression: a verifier’s console session went on after an administrator deleted her credentials', async () => {
      clock.at = FROZEN;
      const verifier = await consolePerson(t, org);
      const { agent } = await signedIn(verifier);
      const credentials = (await t.call('GET', `/persons/${verifier.id}/credentials`, { as: org })).body.result;
      const totp = credentials.find((c: { type: string }) => c.type === 'totp').id;
      assert.equal((await t.call('DELETE', `/persons/${verifier.id}/credentials/${totp}`, { as: org })).status, 204);
      const after = await agent.get('/console/verify');
      assert.deepEqual([after.status, after.location], [303, '/console/sign-in?notice=expired']);
    });

    it('regression: sign out everywhere left the person JWTs valid for an hour; now they end with the sessions', async () => {
      clock.at = FROZEN;
      const person = await twoFactorPerson(t, org, { roles: ['verifier'], console: true });
      const jwt = await signInWithTwoFactors(t, org, person);
      const client = await registerClient(t, org);
      const exchange = () => token(t, { grant_type: EXCHANGE, subject_token: jwt, subject_token_type: JWT_TYPE, requested_token_type: JWT_TYPE }, client);
      assert.equal((await exchange()).status, 200);
      const { agent, page } = await signedIn({ ...person, recoveryCodes: person.recoveryCodes });
      const elsewhere = await signedIn(person);
      const out = await agent.post('/console/sign-out-everywhere', {}, page.csrf);
      assert.equal(out.location, `/console/sign-in?notice=signed-out-everywhere&org=${encodeURIComponent(orgName)}`);
      assert.equal((await elsewhere.agent.get('/console/verify')).location, '/console/sign-in?notice=expired');
      const refused = await exchange();
      assert.deepEqual([refused.status, refused.body.error], [400, 'invalid_request']);
    });

    it('keeps this browser signed in when the person removes a factor of their own, and ends their other sessions', async () => {
      clock.at = FROZEN;
      const person = await consolePerson(t, org, { roles: [] });
      await importCredential(t, org, person.id, 'public-key', importParams(new SoftwareAuthenticator()));
      const here = await signedIn(person);
      const there = await signedIn(person);
      const security = await here.agent.get('/console/security');
      const passkey = /action="\/console\/security\/passkeys\/(crd_\w+)\/remove"/.exec(security.html)![1]!;
      const removed = await here.agent.post(`/console/security/passkeys/${passkey}/remove`, {}, security.csrf);
      assert.equal(removed.location, '/console/security?notice=passkey-removed');
      assert.equal((await here.agent.get('/console/security')).status, 200, 'this browser carries on');
      assert.equal((await there.agent.get('/console/security')).location, '/console/sign-in?notice=expired', 'the other one ends');
    });

    it('sends the sign-in from 127.0.0.1 to localhost when the organisation’s passkeys are bound to localhost', async () => {
      clock.at = FROZEN;
      const local = await t.org();
      const name = (await t.service.store.getOrganization(local.orgId))!.name;
      const port = new URL(t.url).port;
      await t.call('PATCH', '/organizations/config', { as: local, body: { webauthn_rp_id: 'localhost', webauthn_origins: [`http://localhost:${port}`] } });
      const path = `/console/sign-in?org=${encodeURIComponent(name)}`;
      const moved = await new ConsoleAgent(t.url).get(path);
      assert.deepEqual([moved.status, moved.location], [302, `http://localhost:${port}${path}`]);
      assert.equal((await new ConsoleAgent(`http://localhost:${port}`).get(path)).status, 200, 'and no further once there');
      assert.equal((await new ConsoleAgent(t.url).get(`/console/sign-in?org=${encodeURIComponent(orgName)}`)).status, 200, 'another RP id stays');

      // Signed in at 127.0.0.1 all the same (the organisation typed by hand): the page says where passkeys work.
      const person = await consolePerson(t, local, { roles: [] });
      const agent = new ConsoleAgent(t.url);
      await signInWithPassword(agent, local.orgId, person);
      const security = await agent.get('/console/security');
      assert.match(security.html, new RegExp(`Passkeys of this organisation work at <a href="http://localhost:${port}/console/">`));
      assert.doesNotMatch(security.html, /id="passkey-register"/);
    });

    it('refuses to remove an administrator’s last second factor (409), and removes one of two', async () => {
      clock.at = FROZEN;
      const admin = await consolePerson(t, org, { roles: ['admin'] });
      const { agent } = await signedIn(admin);
      let security = await agent.get('/console/security');
      const totp = /action="\/console\/security\/totp\/(crd_\w+)\/remove"/.exec(security.html)![1]!;
      const refused = await agent.post(`/console/security/totp/${totp}/remove`, {}, security.csrf);
      assert.equal(refused.status, 409);
      assert.match(refused.html, /is your last passkey or authenticator app, and as an administrator you sign in with two factors/);
      await importCredential(t, org, admin.id, 'public-key', importParams(new SoftwareAuthenticator()));
      security = await agent.get('/console/security');
      assert.equal((await agent.post(`/console/security/totp/${totp}/remove`, {}, security.csrf)).location, '/console/security?notice=totp-removed');
    });
  });
}

for (const backend of backends()) {
  describe(`A console change of access made while the session's person changes, on ${backend.name}`, () => {
    const clock: TestClock = { at: FROZEN };
    let t: TestService;
    let org: TestOrg;
    /**
     * Runs once, in the store, just before the transaction that writes the next change of access
     * (and its audit event) begins: what another request did meanwhile.
     */
    let meanwhile: ((store: Store) => Promise<void>) | undefined;

    before(async () => {
      const wrapStore = (real: Store): Store =>
        new Proxy(real, {
          get(target, name) {
            if (name !== 'inTransaction') return Reflect.get(target, name);
            return async (...args: Parameters<Store['inTransaction']>) => {
              const step = meanwhile;
              meanwhile = undefined;
              await step?.(real);
              return target.inTransaction(...args);
            };
          },
        });
      t = await startFrozenService(backend, clock, { wrapStore });
      org = await t.org();
    });
    after(() => t.close());

    const adminAt = async () => {
      clock.at = FROZEN;
      const admin = await consolePerson(t, org, { roles: ['admin'] });
      const agent = new ConsoleAgent(t.url);
      const page = await signInWithPassword(agent, org.orgId, admin);
      return { admin, agent, page };
    };

    it('regression: a change that changed nothing carried the session over a credential deletion made meanwhile (third review of issue 23)', async () => {
      const { admin, agent, page } = await adminAt();
      const totp = (await t.service.store.listCredentialsOfType(org.orgId, admin.id, 'totp'))[0]!;
      meanwhile = async (store) => void (await store.deleteCredential(org.orgId, admin.id, totp.id, clock.at));
      const answer = await agent.post(`/console/admin/persons/${admin.id}/access`, { roles: 'admin', console: 'yes' }, page.csrf);
      assert.deepEqual([answer.status, answer.location], [303, '/console/sign-in?notice=expired']);
      assert.equal((await agent.get('/console/admin')).status, 303, 'the session ended with the deletion');
    });

    it('regression: a session demoted meanwhile undid its own demotion by posting its access as its page showed it (third review)', async () => {
      const { admin, agent, page } = await adminAt();
      // The administrator who demotes them: the organisation's last console administrator is never demoted.
      await consolePerson(t, org, { roles: ['admin'] });
      meanwhile = async (store) => assert.equal((await store.setPersonAccess(org.orgId, admin.id, { roles: [], console: false }, clock.at)).kind, 'changed');
      const answer = await agent.post(`/console/admin/persons/${admin.id}/access`, { roles: 'admin', console: 'yes' }, page.csrf);
      assert.deepEqual([answer.status, answer.location], [303, '/console/sign-in?notice=expired']);
      const now = (await t.call('GET', `/persons/${admin.id}`, { as: org })).body.result;
      assert.deepEqual([now.roles, now.console], [[], false], 'the demotion stands');
    });
  });
}
