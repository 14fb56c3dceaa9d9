import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MAX_CONSECUTIVE_FAILURES, MAX_DELAY_MS } from '../../src/authn/attempt-policy.ts';
import { attemptCounter } from '../../src/authn/attempt-subject.ts';
import { credentialTypeContext } from '../../src/credentials/context.ts';
import { importCredential, keyUriOf, login, oathtoolVectors, policyHash } from '../helpers/authn.ts';
import { backends } from '../helpers/backends.ts';
import { startFrozenService, type TestClock } from '../helpers/frozen-service.ts';
import { TEST_SECRET, type TestOrg, type TestService } from '../helpers/service.ts';

const [VECTOR] = oathtoolVectors();
const password = 'correct horse battery staple';

for (const backend of backends()) {
  describe(`Attempt counters per handle and credential type, and their reset, on ${backend.name}`, () => {
    const clock: TestClock = { at: Date.UTC(2031, 0, 1) };
    let t: TestService;
    let org: TestOrg;
    let argonHash: string;

    before(async () => {
      // A hundred failures to a lock: each is answered at the failure time, so the shortest.
      t = await startFrozenService(backend, clock, { loginFailureTimeMs: 100 });
      org = await t.org();
      argonHash = await policyHash(password);
    });
    after(() => t.close());

    /** A person with two email handles and a password. */
    const twoHandledPerson = async () => {
      const tag = Math.random().toString(36).slice(2);
      const emails = [`a${tag}@example.com`, `b${tag}@example.com`];
      const created = await t.call('POST', '/persons', { as: org, body: { handles: emails.map((value) => ({ type: 'email_address', value })) } });
      const id: string = created.body.result.id;
      await importCredential(t, org, id, 'password', { password_hash: argonHash });
      const withPassword = (email: string, secret: string) =>
        login(t, org, '/authn/password', { handle: { type: 'email_address', value: email }, password: secret });
      const withTotp = (email: string, code: string) => login(t, org, '/authn/totp', { handle: { type: 'email_address', value: email }, code });
      return { id, emails, withPassword, withTotp };
    };

    it('regression: a second handle of a person was refused at once after the first was guessed at, telling they are one person', async () => {
      const person = await twoHandledPerson();
      for (let i = 0; i < 5; i++) assert.equal((await person.withPassword(person.emails[0]!, 'wrong')).status, 401);
      assert.equal((await person.withPassword(person.emails[0]!, 'wrong')).status, 429, 'the guessed-at handle waits');
      const other = await person.withPassword(person.emails[1]!, 'wrong');
      assert.equal(other.status, 401, 'the other handle is counted on its own, as an unrelated handle would be');
      assert.equal((await person.withPassword(person.emails[1]!, password)).status, 200);
    });

    it('regression: guesses at a credential type the person has not got locked out their password too', async () => {
      const person = await twoHandledPerson();
      for (let i = 0; i < 5; i++) assert.equal((await person.withTotp(person.emails[0]!, '000000')).status, 401);
      assert.equal((await person.withTotp(person.emails[0]!, '000000')).status, 429);
      assert.equal((await person.withPassword(person.emails[0]!, password)).status, 200, 'the password counter is its own');
    });

    it('regression: a lock after 100 failures could not be undone; an administrator sees and resets it', async () => {
      const person = await twoHandledPerson();
      for (let i = 0; i < MAX_CONSECUTIVE_FAILURES; i++) {
        clock.at += MAX_DELAY_MS;
        assert.equal((await person.withTotp(person.emails[0]!, '000000')).status, 401, `failure ${i + 1}`);
      }
      clock.at += MAX_DELAY_MS;
      const locked = await person.withTotp(person.emails[0]!, '000000');
      assert.equal(locked.status, 429);
      assert.match(locked.body.errors[0].message, /locked after 100 consecutive failed attempts.*DELETE \/persons\/\{person_id\}\/authn-attempts/);

      const listed = await t.call('GET', `/persons/${person.id}/authn-attempts`, { as: org });
      assert.equal(listed.status, 200);
      assert.deepEqual(listed.body.result, [
        { credential_type: 'totp', failures: 100, last_attempt_at: new Date(clock.at - MAX_DELAY_MS).toISOString(), state: 'locked', retry_after: null },
      ]);

      const reset = await t.call('DELETE', `/persons/${person.id}/authn-attempts`, { as: org });
      assert.equal(reset.status, 204);
      assert.deepEqual((await t.call('GET', `/persons/${person.id}/authn-attempts`, { as: org })).body.result, []);
      assert.equal((await person.withTotp(person.emails[0]!, '000000')).status, 401, 'attempts are judged again');
      const events = await t.call('GET', '/audit/events?type=authn.attempts_reset', { as: org });
      assert.equal(events.body.result.at(-1).data.person_id, person.id);
      assert.equal(events.body.result.at(-1).data.counters, 1);
    });

    it('regression: a handle locked before it named anyone stayed locked for the person it later named, past a reset and a new credential', async () => {
      const email = `new.hire.${Math.random().toString(36).slice(2)}@example.com`;
      const guess = () => login(t, org, '/authn/totp', { handle: { type: 'email_address', value: email }, code: '000000' });
      for (let i = 0; i < MAX_CONSECUTIVE_FAILURES; i++) {
        clock.at += MAX_DELAY_MS;
        await guess();
      }
      clock.at += MAX_DELAY_MS;
      assert.equal((await guess()).status, 429);
      const created = await t.call('POST', '/persons', { as: org, body: { handles: [{ type: 'email_address', value: email }] } });
      const personId: string = created.body.result.id;
      const listed = await t.call('GET', `/persons/${personId}/authn-attempts`, { as: org });
      assert.deepEqual(
        listed.body.result.map((r: Record<string, unknown>) => [r.credential_type, r.state]),
        [['totp', 'locked']],
        "the administrator sees the lock on the person's handle",
      );
      await importCredential(t, org, personId, 'totp', { key_uri: keyUriOf(VECTOR!), recovery_codes_total: 0, unused_recovery_codes: [] });
      clock.at = VECTOR!.unix_seconds * 1000;
      const first = await login(t, org, '/authn/totp', { handle: { type: 'email_address', value: email }, code: VECTOR!.code });
      assert.equal(first.status, 200, 'the new credential is not locked by guesses made before the person existed');
    });

    it('shows a delayed counter with its wait, and a new credential of a type starts that type again', async () => {
      const person = await twoHandledPerson();
      for (let i = 0; i < 5; i++) await person.withTotp(person.emails[0]!, '000000');
      const listed = await t.call('GET', `/persons/${person.id}/authn-attempts`, { as: org });
      assert.deepEqual(
        listed.body.result.map((r: Record<string, unknown>) => [r.credential_type, r.failures, r.state, r.retry_after]),
        [['totp', 5, 'delayed', 1]],
      );
      await importCredential(t, org, person.id, 'totp', { key_uri: keyUriOf(VECTOR!), recovery_codes_total: 0, unused_recovery_codes: [] });
      assert.deepEqual((await t.call('GET', `/persons/${person.id}/authn-attempts`, { as: org })).body.result, []);
      clock.at = VECTOR!.unix_seconds * 1000;
      assert.equal((await person.withTotp(person.emails[0]!, VECTOR!.code)).status, 200, 'not left waiting by guesses made before it existed');
    });

    it('keeps each counter under a keyed hash of the handle and type, never the handle', async () => {
      const person = await twoHandledPerson();
      await person.withPassword(person.emails[1]!, 'wrong');
      const { hashCode } = credentialTypeContext(TEST_SECRET);
      const counter = attemptCounter(
        { orgId: org.orgId, handle: { type: 'email_address', value: person.emails[1]! }, personId: person.id, credentialType: 'password' },
        hashCode,
      );
      assert.equal((await t.service.store.getAuthnAttempts(org.orgId, counter.subject))?.failures, 1);
    });

    it('answers 404 for a person not in the organisation, and needs an admin key', async () => {
      for (const method of ['GET', 'DELETE'] as const) {
        const missing = await t.call(method, '/persons/per_nobody/authn-attempts', { as: org });
        assert.deepEqual([missing.status, missing.body.errors[0].message], [404, 'path.person_id: no person of this organisation has this id']);
        const anonymous = await t.call(method, '/persons/per_nobody/authn-attempts', { as: { 'service-orgid': org.orgId } });
        assert.equal(anonymous.status, 401);
      }
    });
  });
}
