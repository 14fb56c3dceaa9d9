import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { attemptEvents, importCredential, login, loginPerson, policyHash } from '../helpers/authn.ts';
import { backends } from '../helpers/backends.ts';
import { argon2idHash, bcryptHash, plantStoredHash } from '../helpers/legacy-hashes.ts';
import { startTestService, type TestOrg, type TestService } from '../helpers/service.ts';

const PASSWORD = 'correct horse battery staple';

for (const backend of backends()) {
  describe(`Password hashes over the cost ceilings, on ${backend.name}`, () => {
    let t: TestService;
    let org: TestOrg;

    before(async () => {
      t = await startTestService(backend, { TESSERA_LOGIN_FAILURE_TIME: '100' });
      org = await t.org();
    });
    after(() => t.close());

    it('refuses an import above a ceiling with a 400 naming the field and the ceiling', async () => {
      const person = await loginPerson(t, org);
      const cases = [
        [bcryptHash(PASSWORD, 4).replace(/^\$2b\$04\$/, '$2b$14$'), 'bcrypt cost must be at most 13'],
        [argon2idHash(PASSWORD, 64, 1).replace('m=64,t=1', 'm=131072,t=3'), 'argon2id m × t must be at most 262144 KiB'],
        [
          `$pbkdf2-sha512$i=1000001,l=64$c2FsdA$${Buffer.alloc(64, 1).toString('base64').replace(/=+$/, '')}`,
          'pbkdf2-sha512 iterations i must be at most 1000000',
        ],
      ] as const;
      for (const [hash, rule] of cases) {
        const response = await t.call('POST', `/persons/${person.id}/credentials`, { as: org, body: { type: 'password', params: { password_hash: hash } } });
        assert.equal(response.status, 400, JSON.stringify(response.body));
        assert.equal(response.body.errors[0].code, 'INVALID_FIELD');
        assert.match(response.body.errors[0].message, new RegExp(`^body\\.params\\.password_hash: ${rule.replace(/[()×]/g, '.')}`));
      }
      assert.equal((await t.call('GET', `/persons/${person.id}/credentials`, { as: org })).body.result.length, 0, 'nothing stored');
    });

    it('never verifies a hash stored above the ceilings: even the right password fails, as over_budget in the audit', async () => {
      const person = await loginPerson(t, org);
      // bcrypt 14 of the right password, as the release before accepted it (0.85 s to verify here).
      await plantStoredHash(t, org, person.id, bcryptHash(PASSWORD, 14));
      const started = performance.now();
      const response = await login(t, org, '/authn/password', { handle: { type: 'email_address', value: person.email }, password: PASSWORD });
      const took = performance.now() - started;
      assert.equal(response.status, 401, JSON.stringify(response.body));
      assert.ok(took < 600, `answered in ${took.toFixed(0)} ms: the 0.85 s hash was verified`);
      const events = await attemptEvents(t, org);
      assert.deepEqual(events.at(-1), { method: 'password', person_id: person.id, credential_id: null, outcome: 'failure', reason: 'over_budget' });
    });

    it('lists the persons to reset with GET /persons?credential=over_budget, paged, until their hash is replaced', async () => {
      const own = await t.org();
      const within = await loginPerson(t, own);
      await importCredential(t, own, within.id, 'password', { password_hash: await policyHash(PASSWORD) });
      const over = [await loginPerson(t, own), await loginPerson(t, own)].sort((a, b) => (a.id < b.id ? -1 : 1));
      const planted: string[] = [];
      for (const person of over) planted.push(await plantStoredHash(t, own, person.id, bcryptHash(PASSWORD, 4).replace(/^\$2b\$04\$/, '$2b$15$')));
      await loginPerson(t, own);

      const first = await t.call('GET', '/persons?credential=over_budget&limit=1', { as: own });
      assert.equal(first.status, 200, JSON.stringify(first.body));
      assert.deepEqual(
        first.body.result.map((p: { id: string }) => p.id),
        [over[0]!.id],
      );
      assert.equal(first.body.meta.cursor_pagination.total_count, 2);
      const next = await t.call('GET', `/persons?credential=over_budget&limit=1&cursor=${first.body.meta.cursor_pagination.next_cursor}`, { as: own });
      assert.deepEqual(
        next.body.result.map((p: { id: string }) => p.id),
        [over[1]!.id],
      );
      assert.equal(next.body.meta.cursor_pagination.next_cursor, undefined);
      const back = await t.call('GET', `/persons?credential=over_budget&limit=1&cursor=${next.body.meta.cursor_pagination.prev_cursor}`, { as: own });
      assert.deepEqual(
        back.body.result.map((p: { id: string }) => p.id),
        [over[0]!.id],
      );
      assert.equal((await t.call('GET', '/persons', { as: own })).body.result.length, 4, 'without the filter, everyone');

      // The reset: the old hash goes, a new one comes; the person is no longer listed and logs in.
      await t.call('DELETE', `/persons/${over[0]!.id}/credentials/${planted[0]}`, { as: own });
      await importCredential(t, own, over[0]!.id, 'password', { password_hash: await policyHash(PASSWORD) });
      const after = await t.call('GET', '/persons?credential=over_budget', { as: own });
      assert.deepEqual(
        after.body.result.map((p: { id: string }) => p.id),
        [over[1]!.id],
      );
      const loggedIn = await login(t, own, '/authn/password', { handle: { type: 'email_address', value: over[0]!.email }, password: PASSWORD });
      assert.equal(loggedIn.status, 200, JSON.stringify(loggedIn.body));
    });

    it('refuses another value of credential, and a cursor of the whole list, naming the query parameter', async () => {
      const bad = await t.call('GET', '/persons?credential=weak', { as: org });
      assert.equal(bad.status, 400);
      assert.match(bad.body.errors[0].message, /credential/);
      const whole = await t.call('GET', '/persons?limit=1', { as: org });
      const mixed = await t.call('GET', `/persons?credential=over_budget&cursor=${whole.body.meta.cursor_pagination.last_cursor}`, { as: org });
      assert.equal(mixed.status, 400);
      assert.match(mixed.body.errors[0].message, /^query\.cursor: is not a cursor of this list/);
    });
  });
}
