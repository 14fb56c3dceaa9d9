import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { URI } from 'otpauth';
import { attemptEvents, importCredential, keyUriOf, login, loginPerson, oathtoolVectors } from '../../helpers/authn.ts';
import { backends } from '../../helpers/backends.ts';
import { startFrozenService, type TestClock } from '../../helpers/frozen-service.ts';
import { claims } from '../../helpers/oauth.ts';
import type { TestOrg, TestService } from '../../helpers/service.ts';

const GENERIC_401 = { errors: [{ httpcode: 401, message: 'authentication: the handle and the secret do not match', code: 'UNAUTHENTICATED' }] };
const [FIRST] = oathtoolVectors();

for (const backend of backends()) {
  describe(`POST /authn/totp, on ${backend.name}`, () => {
    const clock: TestClock = { at: 0 };
    let t: TestService;
    let org: TestOrg;

    before(async () => {
      t = await startFrozenService(backend, clock, { loginFailureTimeMs: 100 });
      org = await t.org();
    });
    after(() => t.close());

    const enrolled = async (keyUri: string, codes: string[] = []) => {
      const person = await loginPerson(t, org);
      await importCredential(t, org, person.id, 'totp', { key_uri: keyUri, recovery_codes_total: 10, unused_recovery_codes: codes });
      return { ...person, totp: (code: string) => login(t, org, '/authn/totp', { handle: { type: 'email_address', value: person.email }, code }) };
    };

    it("accepts every oathtool vector at its own moment with the credential's algorithm, digits and period, then refuses its replay", async () => {
      for (const vector of oathtoolVectors()) {
        const person = await enrolled(keyUriOf(vector));
        clock.at = vector.unix_seconds * 1000;
        const first = await person.totp(vector.code);
        const label = `${vector.algorithm}/${vector.digits}/${vector.period} at ${vector.unix_seconds}`;
        assert.equal(first.status, 200, `${label}: ${JSON.stringify(first.body)}`);
        assert.equal(first.body.result.person_id, person.id);
        assert.deepEqual(claims(first.body.result.token).amr, ['otp'], label);
        const replay = await person.totp(vector.code);
        assert.deepEqual([replay.status, replay.body], [401, GENERIC_401], `${label}: the step is used`);
      }
    });

    it('accepts a code one step early or late, and refuses a step at or before the last one used', async () => {
      const person = await enrolled(keyUriOf(FIRST!));
      const period = FIRST!.period * 1000;
      clock.at = FIRST!.unix_seconds * 1000 + period;
      assert.equal((await person.totp(FIRST!.code)).status, 200, 'the previous step (a late code)');
      const other = await enrolled(keyUriOf(FIRST!));
      clock.at = FIRST!.unix_seconds * 1000 - period;
      assert.equal((await other.totp(FIRST!.code)).status, 200, 'the next step (a clock ahead)');
      clock.at = FIRST!.unix_seconds * 1000 + 2 * period;
      assert.equal((await other.totp(FIRST!.code)).status, 401, 'two steps off');
      const events = await attemptEvents(t, org);
      assert.ok(events.some((event) => event.person_id === person.id && event.outcome === 'success' && event.method === 'totp'));
    });

    it('refuses the code of a step before the last one used, though still inside the window: replayed, not a wrong code', async () => {
      const period = FIRST!.period * 1000;
      // FIRST's code is of the step before the clock's: inside the window of one step either side.
      clock.at = FIRST!.unix_seconds * 1000 + period;
      const control = await enrolled(keyUriOf(FIRST!));
      assert.equal((await control.totp(FIRST!.code)).status, 200, 'the earlier step alone is accepted at this clock');
      const person = await enrolled(keyUriOf(FIRST!));
      const current = URI.parse(keyUriOf(FIRST!)).generate({ timestamp: clock.at });
      assert.notEqual(current, FIRST!.code);
      assert.equal((await person.totp(current)).status, 200, 'the current step is spent');
      const earlier = await person.totp(FIRST!.code);
      assert.deepEqual([earlier.status, earlier.body], [401, GENERIC_401], 'a step before the last one used is never accepted');
      const events = await attemptEvents(t, org);
      const failures = events.filter((event) => event.person_id === person.id && event.outcome === 'failure');
      assert.deepEqual(
        failures.map((event) => [event.method, event.reason]),
        [['totp', 'replayed']],
      );
    });

    it('accepts each recovery code once, in any spelling, reports it in the audit, and counts it down', async () => {
      clock.at = Date.UTC(2031, 0, 1);
      const person = await enrolled(keyUriOf(FIRST!), ['ABCDE-FGHJK', 'MNPQR-STVWX']);
      const used = await person.totp('abcde fghjk');
      assert.equal(used.status, 200, JSON.stringify(used.body));
      assert.deepEqual(claims(used.body.result.token).amr, ['otp']);
      assert.deepEqual([(await person.totp('ABCDE-FGHJK')).status], [401], 'used once');
      const credential = (await t.call('GET', `/persons/${person.id}/credentials`, { as: org })).body.result[0];
      assert.deepEqual(credential.params, { recovery_codes_total: 10, recovery_codes_unused: 1 });
      assert.equal(credential.last_used, new Date(clock.at).toISOString());
      const events = await attemptEvents(t, org);
      assert.deepEqual(
        // Sorted: under a frozen clock two events share a millisecond, and ids order them at random.
        events
          .filter((event) => event.person_id === person.id)
          .map((event) => [event.method, event.outcome, event.reason])
          .sort(),
        [
          ['recovery_code', 'success', null],
          ['totp', 'failure', 'wrong_secret'],
        ],
      );
      assert.ok(!JSON.stringify(events).includes('FGHJK') && !JSON.stringify(events).toLowerCase().includes('fghjk'), 'no code in the audit');
    });

    it('regression: a recovery code spelt with a non-ASCII look-alike logged in; now it is a wrong code and the code stays unused', async () => {
      clock.at = Date.UTC(2031, 0, 2);
      const person = await enrolled(keyUriOf(FIRST!), ['ABCDE-FGHJK', 'MNPQR-STVWX']);
      // U+017F LATIN SMALL LETTER LONG S upper-cases to S; U+00A0 is a no-break space.
      for (const spelling of ['MNPQR-\u017fTVWX', 'MNPQR\u00a0STVWX', '\uff2d\uff2e\uff30\uff31\uff32-STVWX']) {
        const answer = await person.totp(spelling);
        assert.deepEqual([answer.status, answer.body], [401, GENERIC_401], JSON.stringify(spelling));
      }
      assert.equal((await person.totp('mnpqr stvwx')).status, 200, 'the code itself still logs in');
      const events = await attemptEvents(t, org);
      const reasons = events.filter((event) => event.person_id === person.id && event.outcome === 'failure').map((event) => event.reason);
      assert.deepEqual(reasons, ['wrong_secret', 'wrong_secret', 'wrong_secret']);
    });

    it('answers a wrong code, an unknown handle and a person without TOTP with the one generic 401', async () => {
      clock.at = FIRST!.unix_seconds * 1000;
      const person = await enrolled(keyUriOf(FIRST!));
      const without = await loginPerson(t, org);
      const answers = await Promise.all([
        person.totp('000000'),
        login(t, org, '/authn/totp', { handle: { type: 'email_address', value: 'nobody@example.com' }, code: FIRST!.code }),
        login(t, org, '/authn/totp', { handle: { type: 'email_address', value: without.email }, code: FIRST!.code }),
      ]);
      for (const answer of answers) assert.deepEqual([answer.status, answer.body], [401, GENERIC_401]);
    });

    it('refuses bad bodies with a 400 naming the field', async () => {
      const handle = { type: 'email_address', value: 'a@example.com' };
      for (const [body, message] of [
        [{ handle }, 'body.code: is required'],
        [{ handle, code: '' }, 'body.code: '],
        [{ handle, code: 'x'.repeat(65) }, 'body.code: '],
        [{ handle, code: 123456 }, 'body.code: must be a string'],
        [{ handle, code: '123456', password: 'x' }, 'body.password: is not a known field'],
      ] as const) {
        const response = await login(t, org, '/authn/totp', body);
        assert.equal(response.status, 400, JSON.stringify(body));
        assert.ok(
          response.body.errors.some((e: { message: string }) => e.message.startsWith(message)),
          JSON.stringify(response.body),
        );
      }
    });
  });
}
