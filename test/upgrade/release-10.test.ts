import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { LATEST_SCHEMA_VERSION } from '../../src/store/migrations/index.ts';
import { completeWithCode, login } from '../helpers/authn.ts';
import { type Backend, backends } from '../helpers/backends.ts';
import { ConsoleAgent } from '../helpers/console.ts';
import { startFrozenService, type TestClock } from '../helpers/frozen-service.ts';
import { ACCESS_TOKEN_TYPE, claims, EXCHANGE, introspect, JWT_TYPE, token } from '../helpers/oauth.ts';
import type { TestOrg, TestService } from '../helpers/service.ts';
import { type Release10Fixture, restoreRelease10 } from './release-10.ts';

const fixture: Release10Fixture = JSON.parse(readFileSync(new URL('./fixtures/release-10.json', import.meta.url), 'utf8'));
const EARLIER = /was issued before the person signed out everywhere, had their roles changed or a credential removed/;

/** A database of `backend` holding what release 10 left, and how to drop it. */
async function release10Database(backend: Backend): Promise<{ url: string; drop: () => Promise<void> }> {
  if (backend.name === 'postgres') {
    const database = await backend.fresh();
    await restoreRelease10(database.url, fixture);
    return database;
  }
  // A file, not :memory:, so that the service opens the same database the restore filled.
  const dir = mkdtempSync(join(tmpdir(), 'tessera-upgrade-'));
  const url = `sqlite:${join(dir, 'tessera.db')}`;
  await restoreRelease10(url, fixture);
  return { url, drop: async () => rmSync(dir, { recursive: true, force: true }) };
}

for (const backend of backends()) {
  describe(`Upgrading a database made by release 10 (design §5, "Upgrading"), on ${backend.name}`, () => {
    // A minute after release 10 handed out the fixture's tokens: they are all still within their lifetime.
    const clock: TestClock = { at: fixture.madeAt + 60_000 };
    let t: TestService;
    const org: TestOrg = {
      orgId: fixture.orgId,
      apiKey: fixture.apiKey,
      headers: { 'service-orgid': fixture.orgId, 'service-api-key': fixture.apiKey },
    };
    const asPerson = (jwt: string) => ({ 'service-orgid': org.orgId, authorization: `Bearer ${jwt}` });
    const exchange = (subject: string) =>
      token(t, { grant_type: EXCHANGE, subject_token: subject, subject_token_type: JWT_TYPE, requested_token_type: ACCESS_TOKEN_TYPE }, fixture.client);

    before(async () => {
      t = await startFrozenService(backend, clock, { database: await release10Database(backend), issuer: fixture.issuer });
    });
    after(() => t?.close());

    it('migrates past version 11 and raises the generation of exactly those who hold a second factor', async () => {
      const generations = await Promise.all(
        Object.entries(fixture.persons).map(async ([name, id]) => [name, (await t.service.store.getPerson(org.orgId, id))?.generation]),
      );
      assert.deepEqual(Object.fromEntries(generations), { tia: 1, kai: 1, vic: 0, pat: 0 });
      assert.equal(await t.service.store.schemaVersion(), LATEST_SCHEMA_VERSION);
    });

    it("regression: issue 23's exploit token (tia's password-only JWT of release 10) manages no factor and is refused everywhere", async () => {
      const jwt = fixture.tokens.tiaPassword;
      assert.deepEqual(claims(jwt).amr, ['pwd'], 'the token is what release 10 answered a right password with');
      for (const [path, body] of [
        ['/authn/totp/enrolment', {}],
        ['/authn/totp/recovery-codes', {}],
        ['/authn/webauthn/registration/options', {}],
        ['/helpdesk/email-verifications', { connection_id: 'con_x', email: 'someone@example.com' }],
      ] as const) {
        const answer = await t.call('POST', path, { as: asPerson(jwt), body });
        assert.equal(answer.status, 401, `${path}: ${JSON.stringify(answer.body)}`);
        assert.match(answer.body.errors[0].message, EARLIER, path);
      }
      const exchanged = await exchange(jwt);
      assert.deepEqual([exchanged.status, exchanged.body.error], [400, 'invalid_request']);
      assert.match(exchanged.body.error_description, EARLIER);
      assert.deepEqual((await introspect(t, jwt, org)).body, { active: false });
    });

    it("refuses tia's minted JWT and kai's password-only JWT of release 10 (a passkey is a second factor too)", async () => {
      for (const jwt of [fixture.tokens.tiaMinted, fixture.tokens.kaiPassword]) {
        assert.match((await exchange(jwt)).body.error_description, EARLIER);
        assert.deepEqual((await introspect(t, jwt, org)).body, { active: false });
      }
    });

    it('refuses the opaque tokens exchanged for them before the upgrade', async () => {
      assert.deepEqual((await introspect(t, fixture.tokens.tiaDelegatedOpaque, org)).body, { active: false });
    });

    it('keeps the tokens of persons with a password only', async () => {
      for (const jwt of [fixture.tokens.vicPassword, fixture.tokens.patPassword]) {
        const exchanged = await exchange(jwt);
        assert.equal(exchanged.status, 200, JSON.stringify(exchanged.body));
        assert.equal((await introspect(t, jwt, org)).body.active, true);
      }
    });

    it("ends the console sessions of those with a second factor, and sends a password-only verifier's to the enrolment page", async () => {
      const browserOf = (cookie: string) => {
        const agent = new ConsoleAgent(t.url);
        agent.jar.set('__Host-tessera-console', cookie);
        return agent;
      };
      for (const cookie of [fixture.consoleCookies.tia, fixture.consoleCookies.kai]) {
        const page = await browserOf(cookie).get('/console/verify');
        assert.deepEqual([page.status, page.location], [303, '/console/sign-in?notice=expired']);
      }
      const vic = browserOf(fixture.consoleCookies.vic);
      for (const path of ['/console/verify', '/console/security', '/console/']) {
        const page = await vic.get(path);
        assert.deepEqual([page.status, page.location], [303, '/console/enrol'], path);
      }
      const enrol = await vic.get('/console/enrol');
      assert.equal(enrol.status, 200);
      assert.match(enrol.html, /<h1>Add a second factor<\/h1>/);
    });

    it('lets tia sign in again with her password and a recovery code, and manage her factors then', async () => {
      const first = await login(t, org, '/authn/password', { handle: { type: 'email_address', value: 'tia@example.com' }, password: fixture.passwords.tia });
      assert.equal(first.body.result.second_factor_required, true);
      const second = await completeWithCode(t, org, first.body.result.second_factor_ticket, fixture.tiaRecoveryCodes[0]!);
      assert.equal(second.status, 200, JSON.stringify(second.body));
      const jwt = second.body.result.token;
      assert.deepEqual([claims(jwt).amr, claims(jwt).gen], [['pwd', 'otp', 'mfa'], 1]);
      const codes = await t.call('POST', '/authn/totp/recovery-codes', { as: asPerson(jwt), body: {} });
      assert.equal(codes.status, 200, JSON.stringify(codes.body));
    });
  });
}
