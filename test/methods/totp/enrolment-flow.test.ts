import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Secret, TOTP } from 'otpauth';
import { attemptEvents, completeWithCode, importCredential, login, loginPerson, passwordJwt, passwordPerson } from '../../helpers/authn.ts';
import { backends } from '../../helpers/backends.ts';
import { startFrozenService, type TestClock } from '../../helpers/frozen-service.ts';
import { claims, clientToken, registerClient } from '../../helpers/oauth.ts';
import type { TestOrg, TestService } from '../../helpers/service.ts';

const FROZEN = Date.UTC(2031, 4, 6, 7, 8, 0);
/** The code an authenticator app shows for `secret` (Base32) at `at`. */
const codeAt = (secret: string, at: number) => TOTP.generate({ secret: Secret.fromBase32(secret), timestamp: at });

for (const backend of backends()) {
  describe(`TOTP enrolment, on ${backend.name}`, () => {
    const clock: TestClock = { at: FROZEN };
    let t: TestService;
    let org: TestOrg;

    before(async () => {
      t = await startFrozenService(backend, clock, { loginFailureTimeMs: 100 });
      org = await t.org();
    });
    after(() => t.close());

    const asPerson = (jwt: string) => ({ 'service-orgid': org.orgId, authorization: `Bearer ${jwt}` });

    it('a person JWT enrols its person: key and codes shown once, confirmed by a first code that cannot log in again', async () => {
      clock.at = FROZEN;
      const person = await passwordPerson(t, org);
      const jwt = await passwordJwt(t, org, person);
      const started = await t.call('POST', '/authn/totp/enrolment', { as: asPerson(jwt), body: { label: 'phone' } });
      assert.equal(started.status, 201, JSON.stringify(started.body));
      const { enrolment_id, key_uri, secret, recovery_codes, expires_at } = started.body.result;
      assert.match(key_uri, /^otpauth:\/\/totp\//);
      assert.ok(key_uri.includes(`secret=${secret}`));
      assert.equal(recovery_codes.length, 10);
      assert.equal(expires_at, new Date(FROZEN + 600_000).toISOString());

      const wrong = await t.call('POST', '/authn/totp/enrolment/confirm', { as: asPerson(jwt), body: { enrolment_id, code: '000000' } });
      assert.equal(wrong.status, 400);
      assert.match(wrong.body.errors[0].message, /^body\.code: /);
      const code = codeAt(secret, clock.at);
      const confirmed = await t.call('POST', '/authn/totp/enrolment/confirm', { as: asPerson(jwt), body: { enrolment_id, code } });
      assert.equal(confirmed.status, 201, JSON.stringify(confirmed.body));
      assert.deepEqual(
        { type: confirmed.body.result.type, params: confirmed.body.result.params, label: confirmed.body.result.label },
        { type: 'totp', params: { recovery_codes_total: 10, recovery_codes_unused: 10 }, label: 'phone' },
      );
      const again = await t.call('POST', '/authn/totp/enrolment/confirm', { as: asPerson(jwt), body: { enrolment_id, code } });
      assert.deepEqual(
        [again.status, again.body.errors[0].code],
        [401, 'INSUFFICIENT_USER_AUTHENTICATION'],
        'now that the person holds a second factor, a password-only JWT manages no factor',
      );
      const password = await login(t, org, '/authn/password', { handle: { type: 'email_address', value: person.email }, password: person.password });
      assert.equal(password.body.result.second_factor_required, true, 'and a password alone no longer signs them in');
      const second = await completeWithCode(t, org, password.body.result.second_factor_ticket, recovery_codes[1]);
      assert.deepEqual(claims(second.body.result.token).amr, ['pwd', 'otp', 'mfa']);
      const once = await t.call('POST', '/authn/totp/enrolment/confirm', { as: asPerson(second.body.result.token), body: { enrolment_id, code } });
      assert.equal(once.status, 404, 'an enrolment is confirmed once');

      const totp = (value: string) => login(t, org, '/authn/totp', { handle: { type: 'email_address', value: person.email }, code: value });
      assert.equal((await totp(code)).status, 401, "the confirming code's step is spent");
      assert.equal((await totp(recovery_codes[0])).status, 200, 'a recovery code logs in');
      clock.at += 30_000;
      assert.equal((await totp(codeAt(secret, clock.at))).status, 200, 'the next code logs in');
    });

    it('spends the confirming code’s step and every step before it: the previous code, still inside the window, does not log in', async () => {
      clock.at = FROZEN;
      const person = await loginPerson(t, org);
      const started = await t.call('POST', '/authn/totp/enrolment', { as: org, body: { person_id: person.id } });
      assert.equal(started.status, 201, JSON.stringify(started.body));
      const { enrolment_id, key_uri, secret } = started.body.result;
      const body = { person_id: person.id, enrolment_id, code: codeAt(secret, clock.at) };
      assert.equal((await t.call('POST', '/authn/totp/enrolment/confirm', { as: org, body })).status, 201);
      const earlier = codeAt(secret, clock.at - 30_000);
      assert.notEqual(earlier, body.code);
      const totp = (who: { email: string }) => login(t, org, '/authn/totp', { handle: { type: 'email_address', value: who.email }, code: earlier });
      // Another person with the same key: the earlier step alone logs in at this clock.
      const control = await loginPerson(t, org);
      await importCredential(t, org, control.id, 'totp', { key_uri, recovery_codes_total: 10, unused_recovery_codes: [] });
      assert.equal((await totp(control)).status, 200, 'inside the window');
      assert.equal((await totp(person)).status, 401, 'a step before the confirming one is never accepted');
      const events = await attemptEvents(t, org);
      assert.deepEqual(
        events.filter((event) => event.person_id === person.id).map((event) => [event.method, event.outcome, event.reason]),
        [['totp', 'failure', 'replayed']],
      );
    });

    it('regression: an Authorization scheme written "bearer" was refused; RFC 7235 schemes ignore case', async () => {
      clock.at = FROZEN;
      const person = await passwordPerson(t, org);
      const jwt = await passwordJwt(t, org, person);
      const started = await t.call('POST', '/authn/totp/enrolment', { as: { 'service-orgid': org.orgId, authorization: `bearer ${jwt}` }, body: {} });
      assert.equal(started.status, 201, JSON.stringify(started.body));
    });

    it('an admin key enrols the person named by person_id, which it must name', async () => {
      clock.at = FROZEN;
      const person = await loginPerson(t, org);
      const missing = await t.call('POST', '/authn/totp/enrolment', { as: org, body: {} });
      assert.equal(missing.status, 400);
      assert.match(missing.body.errors[0].message, /^body\.person_id: is required/);
      assert.equal((await t.call('POST', '/authn/totp/enrolment', { as: org, body: { person_id: 'per_nobody' } })).status, 404);
      const started = await t.call('POST', '/authn/totp/enrolment', { as: org, body: { person_id: person.id } });
      assert.equal(started.status, 201, JSON.stringify(started.body));
      const { enrolment_id, secret } = started.body.result;
      const confirmed = await t.call('POST', '/authn/totp/enrolment/confirm', {
        as: org,
        body: { person_id: person.id, enrolment_id, code: codeAt(secret, clock.at) },
      });
      assert.equal(confirmed.status, 201, JSON.stringify(confirmed.body));
    });

    it('refuses person_id beside a person JWT, a client token, no credentials, and an expired enrolment', async () => {
      clock.at = FROZEN;
      const person = await passwordPerson(t, org);
      const jwt = await passwordJwt(t, org, person);
      const named = await t.call('POST', '/authn/totp/enrolment', { as: asPerson(jwt), body: { person_id: person.id } });
      assert.deepEqual([named.status, named.body.errors[0].message.split(':')[0]], [400, 'body.person_id']);
      const client = await registerClient(t, org);
      const clientJwt = await clientToken(t, client);
      assert.equal((await t.call('POST', '/authn/totp/enrolment', { as: asPerson(clientJwt), body: {} })).status, 401, 'an opaque client token is no JWT');
      assert.equal((await t.call('POST', '/authn/totp/enrolment', { as: { 'service-orgid': org.orgId }, body: {} })).status, 401);
      const started = await t.call('POST', '/authn/totp/enrolment', { as: asPerson(jwt) });
      assert.equal(started.status, 201, 'no body at all is an empty one');
      clock.at += 600_000;
      const late = await t.call('POST', '/authn/totp/enrolment/confirm', {
        as: asPerson(await passwordJwt(t, org, person)),
        body: { enrolment_id: started.body.result.enrolment_id, code: codeAt(started.body.result.secret, clock.at) },
      });
      assert.equal(late.status, 404, 'expired after ten minutes');
    });
  });
}
