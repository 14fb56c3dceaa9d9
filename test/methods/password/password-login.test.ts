import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { HashWorkPool, parsePasswordHash, verifyPassword } from '../../../src/methods/password/index.ts';
import { attemptEvents, importCredential, login, loginPerson, policyHash, unauditedAttempts } from '../../helpers/authn.ts';
import { backends } from '../../helpers/backends.ts';
import { startFrozenService, type TestClock } from '../../helpers/frozen-service.ts';
import { claims } from '../../helpers/oauth.ts';
import type { TestOrg, TestService } from '../../helpers/service.ts';

const FROZEN = Date.UTC(2031, 4, 6, 7, 8, 9, 10);
/** RFC 7914 §11's first PBKDF2-HMAC-SHA256 vector (password "passwd"), in the service's format. */
const RFC7914 = JSON.parse(readFileSync(new URL('./fixtures/rfc7914-pbkdf2-sha256.json', import.meta.url), 'utf8')).vectors[0];
const GENERIC_401 = { errors: [{ httpcode: 401, message: 'authentication: the handle and the secret do not match', code: 'UNAUTHENTICATED' }] };

for (const backend of backends()) {
  describe(`POST /authn/password, on ${backend.name}`, () => {
    const clock: TestClock = { at: FROZEN };
    let t: TestService;
    let org: TestOrg;
    const password = 'correct horse battery staple';
    let argonHash: string;

    before(async () => {
      t = await startFrozenService(backend, clock);
      org = await t.org();
      argonHash = await policyHash(password);
    });
    after(() => t.close());

    it('answers {token, person_id} with amr pwd, sets last_used and records the success', async () => {
      const person = await loginPerson(t, org);
      const credentialId = await importCredential(t, org, person.id, 'password', { password_hash: argonHash });
      // Any spelling of the address finds the person.
      const response = await login(t, org, '/authn/password', { handle: { type: 'email_address', value: person.email.toUpperCase() }, password });
      assert.equal(response.status, 200, JSON.stringify(response.body));
      assert.deepEqual(Object.keys(response.body.result).sort(), ['person_id', 'token']);
      assert.equal(response.body.result.person_id, person.id);
      const payload = claims(response.body.result.token);
      assert.deepEqual(
        { sub: payload.sub, oid: payload.oid, amr: payload.amr, iat: payload.iat },
        { sub: person.id, oid: org.orgId, amr: ['pwd'], iat: (FROZEN / 1000) | 0 },
      );
      const listed = await t.call('GET', `/persons/${person.id}/credentials`, { as: org });
      assert.equal(listed.body.result[0].last_used, new Date(FROZEN).toISOString());
      assert.equal(listed.body.result[0].params.password_hash, argonHash, 'a hash at the policy is not re-hashed');
      const events = await attemptEvents(t, org);
      assert.deepEqual(events.at(-1), { method: 'password', person_id: person.id, credential_id: credentialId, outcome: 'success', reason: null });
    });

    it('re-hashes a pbkdf2-sha256 hash with argon2id on success, records the upgrade, and the new hash verifies', async () => {
      const person = await loginPerson(t, org);
      const credentialId = await importCredential(t, org, person.id, 'password', { password_hash: RFC7914.hash });
      const pbkdf2Password = Buffer.from(RFC7914.password_hex, 'hex').toString('utf8');
      const response = await login(t, org, '/authn/password', { handle: { type: 'email_address', value: person.email }, password: pbkdf2Password });
      assert.equal(response.status, 200, JSON.stringify(response.body));
      const stored = (await t.call('GET', `/persons/${person.id}/credentials`, { as: org })).body.result[0].params.password_hash;
      const parsed = parsePasswordHash(stored);
      assert.deepEqual([parsed.function, parsed.version], ['argon2id', 0x13]);
      assert.equal(await verifyPassword(stored, pbkdf2Password, new HashWorkPool({ concurrency: 1 })), true);
      const upgraded = await t.call('GET', '/audit/events?type=authn.password_upgraded', { as: org });
      assert.deepEqual(
        upgraded.body.result.map((event: { data: unknown }) => event.data),
        [{ person_id: person.id, credential_id: credentialId, from: 'pbkdf2', to: 'argon2id' }],
      );
      const again = await login(t, org, '/authn/password', { handle: { type: 'email_address', value: person.email }, password: pbkdf2Password });
      assert.equal(again.status, 200, 'the upgraded hash logs in');
    });

    it('answers a wrong password, an unknown handle and a person without a password alike: one generic 401', async () => {
      const withPassword = await loginPerson(t, org);
      await importCredential(t, org, withPassword.id, 'password', { password_hash: argonHash });
      const without = await loginPerson(t, org);
      const strangers = { method: 'password', outcome: 'failure', reason: 'unknown_handle' };
      const strangersBefore = await unauditedAttempts(t, strangers);
      const failures = await Promise.all([
        login(t, org, '/authn/password', { handle: { type: 'email_address', value: withPassword.email }, password: 'wrong' }),
        login(t, org, '/authn/password', { handle: { type: 'email_address', value: 'nobody@example.com' }, password }),
        login(t, org, '/authn/password', { handle: { type: 'email_address', value: without.email }, password }),
      ]);
      for (const failure of failures) {
        assert.equal(failure.status, 401);
        assert.deepEqual(failure.body, GENERIC_401);
      }
      const events = await attemptEvents(t, org);
      const reasons = events.filter((event) => event.outcome === 'failure').map((event) => event.reason);
      for (const reason of ['wrong_secret', 'no_credential']) assert.ok(reasons.includes(reason), reason);
      assert.ok(!JSON.stringify(events).includes(password), 'no password in the audit');
      // A handle that names no one is counted, never logged: strangers cannot grow the audit log.
      assert.ok(!reasons.includes('unknown_handle'), 'an unknown handle writes no audit event');
      assert.equal(await unauditedAttempts(t, strangers), strangersBefore + 1);
    });

    it('refuses bad bodies with a 400 naming the field', async () => {
      const cases: [unknown, string][] = [
        [{ handle: { type: 'email_address', value: 'a@example.com' } }, 'body.password: is required'],
        [{ handle: { type: 'email_address', value: 'a@example.com' }, password: 'x', remember: true }, 'body.remember: is not a known field'],
        [{ handle: { type: 'username', value: 'a' }, password: 'x' }, 'body.handle.type: must be one of'],
        [{ handle: { type: 'email_address', value: 'not an address' }, password: 'x' }, 'body.handle.value: '],
        [{ handle: { type: 'email_address', value: 'a@example.com' }, password: '' }, 'body.password: '],
        [{ password: 'x' }, 'body.handle: is required'],
      ];
      for (const [body, message] of cases) {
        const response = await login(t, org, '/authn/password', body);
        assert.equal(response.status, 400, JSON.stringify(body));
        assert.ok(
          response.body.errors.some((e: { message: string }) => e.message.startsWith(message)),
          `${JSON.stringify(response.body)} names ${message}`,
        );
      }
    });

    it('limits attempts per person: five free, then 429 with Retry-After, and a success resets the count', async () => {
      const person = await loginPerson(t, org);
      await importCredential(t, org, person.id, 'password', { password_hash: argonHash });
      const attempt = (secret: string) => login(t, org, '/authn/password', { handle: { type: 'email_address', value: person.email }, password: secret });
      for (let i = 0; i < 5; i++) assert.equal((await attempt('wrong')).status, 401);
      const refused = { method: 'password', outcome: 'refused', reason: 'too_many_attempts' };
      const refusedBefore = await unauditedAttempts(t, refused);
      const early = await attempt(password);
      assert.equal(early.status, 429, 'even the right password waits');
      assert.equal(early.headers.get('retry-after'), '1');
      clock.at += 1000;
      assert.equal((await attempt(password)).status, 200);
      for (let i = 0; i < 5; i++) assert.equal((await attempt('wrong')).status, 401, 'the count started again');
      // A 429 judged no secret: counted, not logged (anyone can send them at a known handle by the thousand).
      assert.equal(await unauditedAttempts(t, refused), refusedBefore + 1);
      const events = await attemptEvents(t, org);
      assert.ok(!events.some((event) => event.reason === 'too_many_attempts'));
    });

    it('limits an unknown handle like a known one', async () => {
      const attempt = () => login(t, org, '/authn/password', { handle: { type: 'phone_number', value: '+14155550199' }, password: 'guess' });
      for (let i = 0; i < 5; i++) assert.equal((await attempt()).status, 401);
      assert.equal((await attempt()).status, 429);
    });

    it('answers an unknown organisation 404 and a missing Service-OrgID 400', async () => {
      const body = { handle: { type: 'email_address', value: 'a@example.com' }, password };
      assert.equal((await t.call('POST', '/authn/password', { as: { 'service-orgid': 'org_missing' }, body })).status, 404);
      assert.equal((await t.call('POST', '/authn/password', { body })).status, 400);
    });
  });
}
