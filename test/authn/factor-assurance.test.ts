import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { URI } from 'otpauth';
import { RECENT_SIGN_IN_MS } from '../../src/authn/assurance.ts';
import { SoftwareAuthenticator } from '../../src/dev/software-authenticator.ts';
import { login, passwordJwt, passwordPerson, signInWithTwoFactors, twoFactorPerson } from '../helpers/authn.ts';
import { backends } from '../helpers/backends.ts';
import { startFrozenService, type TestClock } from '../helpers/frozen-service.ts';
import { claims, clientToken, EXCHANGE, JWT_TYPE, mintPersonToken, registerClient, token } from '../helpers/oauth.ts';
import { errorCodes, type Response, type TestOrg, type TestService } from '../helpers/service.ts';
import { configurePasskeys } from '../methods/passkey/passkeys.ts';
import { scimTenant } from '../scim/scim-helpers.ts';

const FROZEN = Date.UTC(2031, 4, 6, 7, 8, 0);
const STEP_UP = /^Bearer error="insufficient_user_authentication", error_description="[a-z -]+"/;

/**
 * Issue 23's reproduction, and design §5's rules for it: what a person's own JWT may do with
 * factors and at the helpdesk door depends on what its sign-in proved (`amr`, `auth_time`).
 */
for (const backend of backends()) {
  describe(`Factor management and the helpdesk door ask what the caller proved, on ${backend.name}`, () => {
    const clock: TestClock = { at: FROZEN };
    let t: TestService;
    let org: TestOrg;
    let connectionId: string;

    before(async () => {
      t = await startFrozenService(backend, clock);
      org = await t.org();
      await configurePasskeys(t, org);
      connectionId = (await scimTenant(t, org)).connectionId;
    });
    after(() => t.close());

    const as = (jwt: string) => ({ 'service-orgid': org.orgId, authorization: `Bearer ${jwt}` });
    /** Every door the review found open to one factor, each called with `jwt`. */
    const doors = (jwt: string): Promise<[string, Response]>[] =>
      (
        [
          ['/authn/totp/recovery-codes', {}],
          ['/authn/totp/enrolment', {}],
          ['/authn/totp/enrolment/confirm', { enrolment_id: 'enr_x', code: '123456' }],
          ['/authn/webauthn/registration/options', {}],
          ['/authn/webauthn/registration/verify', { challenge_id: 'wch_x', response: { id: 'x', type: 'public-key' } }],
          ['/helpdesk/email-verifications', { connection_id: connectionId, email: 'caller@example.com' }],
        ] as const
      ).map(async ([path, body]) => [path, await t.call('POST', path, { as: as(jwt), body })] as [string, Response]);
    const refusedEverywhere = async (jwt: string, why: RegExp) => {
      for (const [path, answer] of await Promise.all(doors(jwt))) {
        assert.deepEqual([answer.status, errorCodes(answer.body)], [401, ['INSUFFICIENT_USER_AUTHENTICATION']], `${path}: ${JSON.stringify(answer.body)}`);
        assert.match(answer.body.errors[0].message, why, path);
        assert.match(answer.headers.get('www-authenticate') ?? '', STEP_UP, path);
      }
    };

    it('regression: a password alone no longer gives a JWT that manages the TOTP person’s factors (issue 23)', async () => {
      clock.at = FROZEN;
      const victim = await twoFactorPerson(t, org, { roles: ['verifier'], console: true });
      const password = await login(t, org, '/authn/password', { handle: { type: 'email_address', value: victim.email }, password: victim.password });
      assert.equal(password.body.result.token, undefined, 'no token from the password');
      // What the attacker can still get with one factor: a code alone (amr otp).
      const code = await login(t, org, '/authn/totp', { handle: { type: 'email_address', value: victim.email }, code: victim.recoveryCodes.shift() });
      assert.deepEqual(claims(code.body.result.token).amr, ['otp']);
      await refusedEverywhere(code.body.result.token, /needs a sign-in with two factors \(amr mfa\)/);
    });

    it('regression: a mint-token JWT opens none of those doors, though it stays a subject of token exchange', async () => {
      clock.at = FROZEN;
      for (const person of [await twoFactorPerson(t, org, { roles: ['verifier'], console: true }), await passwordPerson(t, org)]) {
        const minted = await mintPersonToken(t, org, person.id);
        await refusedEverywhere(minted, /a token from mint-token proves no sign-in/);
        const client = await registerClient(t, org);
        const exchanged = await token(t, { grant_type: EXCHANGE, subject_token: minted, subject_token_type: JWT_TYPE, requested_token_type: JWT_TYPE }, client);
        assert.equal(exchanged.status, 200, JSON.stringify(exchanged.body));
      }
    });

    it('lets a sign-in with two factors manage factors and open the helpdesk door', async () => {
      clock.at = FROZEN;
      const verifier = await twoFactorPerson(t, org, { roles: ['verifier'], console: true });
      const jwt = await signInWithTwoFactors(t, org, verifier);
      assert.equal((await t.call('POST', '/authn/totp/recovery-codes', { as: as(jwt), body: {} })).status, 200);
      assert.equal((await t.call('POST', '/authn/totp/enrolment', { as: as(jwt), body: {} })).status, 201);
      assert.equal((await t.call('POST', '/authn/webauthn/registration/options', { as: as(jwt), body: {} })).status, 200);
      const helpdesk = await t.call('POST', '/helpdesk/email-verifications', {
        as: as(jwt),
        body: { connection_id: connectionId, email: 'nobody@example.com' },
      });
      assert.equal(helpdesk.status, 404, 'past the door: no such identity in the directory');
    });

    it('needs a sign-in no older than ten minutes for new recovery codes (max_age in the challenge), not for enrolment', async () => {
      clock.at = FROZEN;
      const person = await twoFactorPerson(t, org);
      const jwt = await signInWithTwoFactors(t, org, person);
      clock.at += RECENT_SIGN_IN_MS + 1_000;
      const stale = await t.call('POST', '/authn/totp/recovery-codes', { as: as(jwt), body: {} });
      assert.deepEqual([stale.status, errorCodes(stale.body)], [401, ['INSUFFICIENT_USER_AUTHENTICATION']]);
      assert.match(stale.body.errors[0].message, /needs a sign-in within the last 10 minutes \(auth_time\)/);
      assert.match(stale.headers.get('www-authenticate') ?? '', /, max_age=600$/);
      assert.equal((await t.call('POST', '/authn/totp/enrolment', { as: as(jwt), body: {} })).status, 201, 'adding is not a removal');
      clock.at -= 2_000;
      assert.equal((await t.call('POST', '/authn/totp/recovery-codes', { as: as(jwt), body: {} })).status, 200, 'just within ten minutes');
    });

    it('lets a password-only sign-in add a first second factor, and no second one', async () => {
      clock.at = FROZEN;
      const person = await passwordPerson(t, org);
      const jwt = await passwordJwt(t, org, person);
      assert.deepEqual(claims(jwt).amr, ['pwd']);
      const started = await t.call('POST', '/authn/webauthn/registration/options', { as: as(jwt), body: {} });
      assert.equal(started.status, 200, JSON.stringify(started.body));
      const { challenge_id, options } = started.body.result;
      const authenticator = new SoftwareAuthenticator();
      const response = authenticator.register({
        challenge: options.challenge,
        rpId: options.rp.id,
        origin: 'https://login.example.com',
        userId: options.user.id,
      });
      assert.equal((await t.call('POST', '/authn/webauthn/registration/verify', { as: as(jwt), body: { challenge_id, response } })).status, 201);
      await refusedEverywhere(jwt, /needs a sign-in with two factors \(amr mfa\)/);
    });

    it('regression: concurrent confirmations with a password-only JWT added two second factors; now only the first is added', async () => {
      clock.at = FROZEN;
      const person = await passwordPerson(t, org);
      const jwt = await passwordJwt(t, org, person);
      const started = await Promise.all(Array.from({ length: 4 }, () => t.call('POST', '/authn/totp/enrolment', { as: as(jwt), body: {} })));
      const answers = await Promise.all(
        started.map(({ body: { result } }) =>
          t.call('POST', '/authn/totp/enrolment/confirm', {
            as: as(jwt),
            body: { enrolment_id: result.enrolment_id, code: URI.parse(result.key_uri).generate({ timestamp: clock.at }) },
          }),
        ),
      );
      assert.deepEqual(answers.map((a) => a.status).sort(), [201, 401, 401, 401], JSON.stringify(answers.map((a) => a.body)));
      for (const refused of answers.filter((a) => a.status === 401)) assert.deepEqual(errorCodes(refused.body), ['INSUFFICIENT_USER_AUTHENTICATION']);
      const held = (await t.call('GET', `/persons/${person.id}/credentials`, { as: org })).body.result.map((c: { type: string }) => c.type);
      assert.deepEqual(held.sort(), ['password', 'totp']);
    });

    it('refuses a delegated token and a client’s token as not the person’s own (403)', async () => {
      clock.at = FROZEN;
      const person = await twoFactorPerson(t, org, { roles: ['verifier'], console: true });
      const jwt = await signInWithTwoFactors(t, org, person);
      const client = await registerClient(t, org, { access_token_format: 'jwt', grant_types: ['client_credentials', EXCHANGE] });
      const delegated = await token(t, { grant_type: EXCHANGE, subject_token: jwt, subject_token_type: JWT_TYPE, requested_token_type: JWT_TYPE }, client);
      assert.equal(delegated.status, 200, JSON.stringify(delegated.body));
      const own = await clientToken(t, client);
      assert.equal(claims(own).client_id, client.id, "the client's own JWT");
      for (const jwtOfOthers of [delegated.body.access_token, own]) {
        for (const [path, answer] of await Promise.all(doors(jwtOfOthers))) {
          assert.deepEqual([answer.status, errorCodes(answer.body)], [403, ['FORBIDDEN']], path);
        }
      }
    });
  });
}
