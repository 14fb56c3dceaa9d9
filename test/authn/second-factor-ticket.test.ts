import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { URI } from 'otpauth';
import { FREE_ATTEMPTS } from '../../src/authn/attempt-policy.ts';
import { TICKET_LIFETIME_MS, TICKET_MAX_ATTEMPTS } from '../../src/authn/second-factor.ts';
import { hashSecret } from '../../src/crypto/ids.ts';
import { SoftwareAuthenticator } from '../../src/dev/software-authenticator.ts';
import { completeWithCode, importCredential, login, passwordPerson, type TwoFactorPerson, twoFactorPerson } from '../helpers/authn.ts';
import { backends } from '../helpers/backends.ts';
import { startFrozenService, type TestClock } from '../helpers/frozen-service.ts';
import { claims } from '../helpers/oauth.ts';
import { errorCodes, type TestOrg, type TestService } from '../helpers/service.ts';
import { asBrowser, configurePasskeys, importParams, ORIGIN } from '../methods/passkey/passkeys.ts';

const FROZEN = Date.UTC(2031, 4, 6, 7, 8, 0);

for (const backend of backends()) {
  describe(`The second factor after a password (design §5: a ticket between the factors), on ${backend.name}`, () => {
    const clock: TestClock = { at: FROZEN };
    let t: TestService;
    let org: TestOrg;

    before(async () => {
      t = await startFrozenService(backend, clock);
      org = await t.org();
      await configurePasskeys(t, org);
    });
    after(() => t.close());

    const password = (person: { email: string; password: string }) =>
      login(t, org, '/authn/password', { handle: { type: 'email_address', value: person.email }, password: person.password });
    const ticketOf = async (person: TwoFactorPerson): Promise<string> => {
      const answer = await password(person);
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      return answer.body.result.second_factor_ticket;
    };
    const codeNow = (person: TwoFactorPerson) => URI.parse(person.keyUri).generate({ timestamp: clock.at });

    it('answers a right password of a person with a second factor with a ticket, not a token', async () => {
      clock.at = FROZEN;
      const person = await twoFactorPerson(t, org);
      const answer = await password(person);
      assert.equal(answer.status, 200);
      const { second_factor_ticket: ticket, ...rest } = answer.body.result;
      assert.match(ticket, /^sft_[A-Za-z0-9_-]{43}$/);
      assert.deepEqual(rest, { second_factor_required: true, expires_at: new Date(FROZEN + TICKET_LIFETIME_MS).toISOString(), second_factors: ['totp'] });
      const stored = await t.service.store.getSecondFactorTicket(org.orgId, hashSecret(ticket), clock.at, TICKET_MAX_ATTEMPTS);
      assert.equal(stored?.personId, person.id, 'kept under its SHA-256');
      assert.ok(!JSON.stringify(stored).includes(ticket.slice(4)), 'and nowhere in the clear');
    });

    it('completes with the current TOTP code: a JWT with pwd, otp and mfa, when and at which generation', async () => {
      clock.at = FROZEN;
      const person = await twoFactorPerson(t, org);
      const ticket = await ticketOf(person);
      clock.at += 20_000;
      const answer = await completeWithCode(t, org, ticket, codeNow(person));
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      const jwt = claims(answer.body.result.token);
      assert.deepEqual([jwt.sub, jwt.amr, jwt.auth_time, jwt.gen], [person.id, ['pwd', 'otp', 'mfa'], Math.floor(clock.at / 1000), undefined]);
      const events = (await t.call('GET', '/audit/events?type=authn.attempt&limit=100', { as: org })).body.result.map((e: any) => e.data);
      const theirs = events.filter((e: any) => e.person_id === person.id).map((e: any) => [e.method, e.outcome]);
      assert.deepEqual(theirs.sort(), [
        ['password', 'success'],
        ['totp', 'success'],
      ]);
    });

    it('refuses the code of a step before the last one used, though still inside the window: the step is replayed', async () => {
      clock.at = FROZEN;
      const person = await twoFactorPerson(t, org);
      const earlier = URI.parse(person.keyUri).generate({ timestamp: clock.at - 30_000 });
      assert.notEqual(earlier, codeNow(person));
      // Another person with the same key: the earlier step alone is accepted at this clock.
      const control = await passwordPerson(t, org);
      await importCredential(t, org, control.id, 'totp', { key_uri: person.keyUri, recovery_codes_total: 10, unused_recovery_codes: [] });
      assert.equal((await completeWithCode(t, org, (await password(control)).body.result.second_factor_ticket, earlier)).status, 200, 'inside the window');
      assert.equal((await completeWithCode(t, org, await ticketOf(person), codeNow(person))).status, 200, 'the current step is spent');
      const answer = await completeWithCode(t, org, await ticketOf(person), earlier);
      assert.equal(answer.status, 401, 'a step before the last one used is never accepted');
      assert.deepEqual(errorCodes(answer.body), ['UNAUTHENTICATED']);
      const events = (await t.call('GET', '/audit/events?type=authn.attempt&limit=100', { as: org })).body.result.map((e: any) => e.data);
      const failures = events.filter((e: any) => e.person_id === person.id && e.outcome === 'failure').map((e: any) => [e.method, e.reason]);
      assert.deepEqual(failures, [['totp', 'replayed']]);
    });

    it('completes with a passkey: the options list the person’s passkeys, the JWT names both factors', async () => {
      clock.at = FROZEN;
      const person = await twoFactorPerson(t, org);
      const authenticator = new SoftwareAuthenticator();
      await importCredential(t, org, person.id, 'public-key', importParams(authenticator));
      const first = await password(person);
      assert.deepEqual(first.body.result.second_factors, ['totp', 'passkey']);
      const ticket = first.body.result.second_factor_ticket;
      const started = await asBrowser(t, org, '/authn/webauthn/options', { second_factor_ticket: ticket });
      assert.equal(started.status, 200, JSON.stringify(started.body));
      const { challenge_id, options } = started.body.result;
      assert.deepEqual(
        options.allowCredentials.map((c: { id: string }) => c.id),
        [authenticator.credentialId],
      );
      const response = authenticator.assert({ challenge: options.challenge, rpId: options.rpId, origin: ORIGIN });
      const missing = await asBrowser(t, org, '/authn/webauthn/verify', { challenge_id, response });
      assert.equal(missing.status, 200, 'without the ticket it is a passkey login of its own');
      assert.deepEqual(claims(missing.body.result.token).amr, ['hwk', 'user', 'mfa']);
      const started2 = (await asBrowser(t, org, '/authn/webauthn/options', { second_factor_ticket: ticket })).body.result;
      const response2 = authenticator.assert({ challenge: started2.options.challenge, rpId: started2.options.rpId, origin: ORIGIN });
      const done = await asBrowser(t, org, '/authn/webauthn/verify', {
        challenge_id: started2.challenge_id,
        response: response2,
        second_factor_ticket: ticket,
      });
      assert.equal(done.status, 200, JSON.stringify(done.body));
      assert.deepEqual(claims(done.body.result.token).amr, ['pwd', 'hwk', 'user', 'mfa']);
    });

    it('is spent once: of 20 concurrent completions with 20 right recovery codes, one signs in', async () => {
      clock.at = FROZEN;
      const person = await twoFactorPerson(t, org);
      const ticket = await ticketOf(person);
      const answers = await Promise.all(person.recoveryCodes.slice(0, 20).map((code) => completeWithCode(t, org, ticket, code)));
      assert.equal(answers.filter((a) => a.status === 200).length, 1, answers.map((a) => a.status).join());
      assert.ok(
        answers.every((a) => a.status === 200 || a.status === 401 || a.status === 429),
        answers.map((a) => a.status).join(),
      );
      const again = await completeWithCode(t, org, ticket, person.recoveryCodes[19]!);
      assert.deepEqual([again.status, errorCodes(again.body)], [401, ['SECOND_FACTOR_TICKET_INVALID']]);
    });

    it(`allows ${TICKET_MAX_ATTEMPTS} attempts: after as many wrong codes, even the right one is refused`, async () => {
      clock.at = FROZEN;
      const person = await twoFactorPerson(t, org);
      const ticket = await ticketOf(person);
      for (let n = 1; n <= TICKET_MAX_ATTEMPTS; n++) {
        const wrong = await completeWithCode(t, org, ticket, '00000000');
        assert.equal(wrong.status, 401);
        const left = TICKET_MAX_ATTEMPTS - n;
        assert.match(wrong.body.errors[0].message, left > 0 ? new RegExp(`; ${left} more attempts? with this ticket$`) : /no more attempts with this ticket/);
      }
      clock.at += 2_000; // past the handle counter's first delay, so that only the ticket's own count decides
      const right = await completeWithCode(t, org, ticket, person.recoveryCodes[0]!);
      assert.deepEqual([right.status, errorCodes(right.body)], [401, ['SECOND_FACTOR_TICKET_INVALID']]);
      assert.equal((await completeWithCode(t, org, await ticketOf(person), person.recoveryCodes[0]!)).status, 200, 'the code was not spent');
    });

    it('counts wrong codes on the handle’s TOTP counter, like any login: the sixth in a row waits', async () => {
      clock.at = FROZEN;
      const person = await twoFactorPerson(t, org);
      for (let i = 0; i < FREE_ATTEMPTS; i++) assert.equal((await completeWithCode(t, org, await ticketOf(person), '00000000')).status, 401);
      const waiting = await completeWithCode(t, org, await ticketOf(person), person.recoveryCodes[0]!);
      assert.deepEqual([waiting.status, errorCodes(waiting.body)], [429, ['TOO_MANY_ATTEMPTS']]);
      assert.ok(waiting.headers.get('retry-after'));
    });

    it('lives five minutes', async () => {
      clock.at = FROZEN;
      const person = await twoFactorPerson(t, org);
      const ticket = await ticketOf(person);
      clock.at += TICKET_LIFETIME_MS;
      const late = await completeWithCode(t, org, ticket, person.recoveryCodes[0]!);
      assert.deepEqual([late.status, errorCodes(late.body)], [401, ['SECOND_FACTOR_TICKET_INVALID']]);
    });

    it('ends when the person’s generation is raised between the factors (an administrator removed a credential)', async () => {
      clock.at = FROZEN;
      const person = await twoFactorPerson(t, org);
      const extra = await importCredential(t, org, person.id, 'public-key', importParams(new SoftwareAuthenticator()));
      const ticket = await ticketOf(person);
      assert.equal((await t.call('DELETE', `/persons/${person.id}/credentials/${extra}`, { as: org })).status, 204);
      const answer = await completeWithCode(t, org, ticket, person.recoveryCodes[0]!);
      assert.deepEqual([answer.status, errorCodes(answer.body)], [401, ['SECOND_FACTOR_TICKET_INVALID']]);
    });

    it('is of its organisation only', async () => {
      clock.at = FROZEN;
      const person = await twoFactorPerson(t, org);
      const ticket = await ticketOf(person);
      const other = await t.org();
      const answer = await completeWithCode(t, other, ticket, person.recoveryCodes[0]!);
      assert.deepEqual([answer.status, errorCodes(answer.body)], [401, ['SECOND_FACTOR_TICKET_INVALID']]);
      assert.equal((await completeWithCode(t, org, ticket, person.recoveryCodes[0]!)).status, 200, 'and the foreign try did not spend it');
    });

    it('names the rule when a body has both a handle and a ticket, or neither', async () => {
      clock.at = FROZEN;
      const handle = { type: 'email_address', value: 'someone@example.com' };
      for (const body of [{ handle, second_factor_ticket: 'sft_x', code: '123456' }, { code: '123456' }]) {
        const answer = await login(t, org, '/authn/totp', body);
        assert.equal(answer.status, 400);
        assert.match(answer.body.errors[0].message, /^body: must have exactly one of handle .* and second_factor_ticket/);
      }
      const both = await asBrowser(t, org, '/authn/webauthn/options', { handle, second_factor_ticket: 'sft_x' });
      assert.deepEqual([both.status, both.body.errors[0].message], [400, 'body: must have at most one of handle and second_factor_ticket']);
    });

    it('signs a person without a second factor in with the password alone (amr pwd), as before', async () => {
      clock.at = FROZEN;
      const person = await passwordPerson(t, org);
      const answer = await password(person);
      assert.deepEqual(Object.keys(answer.body.result).sort(), ['person_id', 'token']);
      assert.deepEqual(claims(answer.body.result.token).amr, ['pwd']);
    });
  });
}
