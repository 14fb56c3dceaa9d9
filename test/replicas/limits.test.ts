import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { FREE_ATTEMPTS, MAX_CONSECUTIVE_FAILURES, MAX_DELAY_MS } from '../../src/authn/attempt-policy.ts';
import { importCredential, login, loginPerson, policyHash } from '../helpers/authn.ts';
import { type FreshDatabase, postgresServerUrl, type Replica } from '../helpers/replicas.ts';
import type { TestOrg } from '../helpers/service.ts';
import type { SmtpListener } from '../helpers/smtp.ts';
import { wrongCode } from '../verification/harness.ts';
import { type Helpdesk, type HelpdeskReplicas, outcomeOf, startHelpdeskReplicas } from './helpdesk.ts';

const server = postgresServerUrl();
const PASSWORD = 'correct horse battery staple';

if (server) {
  describe('Two service processes on one PostgreSQL: attempt counters and rate limits are global', () => {
    let database: FreshDatabase;
    let smtp: SmtpListener;
    let replicas: [Replica, Replica];
    let org: TestOrg;
    let desk: Helpdesk;
    /** The replica the i-th request of a sequence goes to: they alternate. */
    const on = (i: number) => replicas[i % 2]!;

    let stack: HelpdeskReplicas | undefined;
    before(async () => {
      // No bound on password logins in flight, so that only the attempt counter decides the concurrent case;
      // the shortest failure time, so that the sixth attempt comes before the fifth failure's 1 s delay is over
      // (at the default 1 s, answering the fifth failure takes that delay).
      stack = await startHelpdeskReplicas(server, { TESSERA_LOGINS_PER_SOURCE: '0', TESSERA_LOGIN_FAILURE_TIME: '100' });
      ({ database, smtp, replicas, org, desk } = stack);
    });
    after(() => stack?.stop());

    const personWithPassword = async () => {
      const person = await loginPerson(on(0).t, org);
      await importCredential(on(1).t, org, person.id, 'password', { password_hash: await policyHash(PASSWORD) });
      return person;
    };
    const passwordLogin = (i: number, email: string, password: string) =>
      login(on(i).t, org, '/authn/password', { handle: { type: 'email_address', value: email }, password });
    const counters = async (i: number, personId: string) => (await on(i).t.call('GET', `/persons/${personId}/authn-attempts`, { as: org })).body.result;

    it(`counts failed password logins on both replicas as one: the attempt after ${FREE_ATTEMPTS}, on either, must wait; at ${MAX_CONSECUTIVE_FAILURES} the handle is locked on both`, async () => {
      const person = await personWithPassword();
      for (let i = 0; i < FREE_ATTEMPTS; i++) assert.equal((await passwordLogin(i, person.email, 'wrong')).status, 401, `failure ${i + 1}`);
      // Per-replica counts would be 3 and 2 here: each replica would let the next attempt through.
      for (const i of [FREE_ATTEMPTS, FREE_ATTEMPTS + 1]) {
        const refused = await passwordLogin(i, person.email, PASSWORD);
        assert.equal(refused.status, 429, JSON.stringify(refused.body));
        assert.equal(outcomeOf(refused), 'TOO_MANY_ATTEMPTS');
        assert.equal(refused.headers.get('retry-after'), '1');
      }
      assert.deepEqual(
        (await counters(1, person.id)).map((c: any) => [c.credential_type, c.failures, c.state]),
        [['password', FREE_ATTEMPTS, 'delayed']],
      );

      // Reaching the lock at the policy's pace takes about 21 hours: the count and the time are moved on in the
      // database, as those hours would have left them, one failure short of the lock.
      const sql = new pg.Client({ connectionString: database.url });
      await sql.connect();
      try {
        const moved = await sql.query(
          "UPDATE authn_attempts SET failures = $1, last_attempt_at = $2 WHERE org_id = $3 AND person_id = $4 AND credential_type = 'password'",
          [MAX_CONSECUTIVE_FAILURES - 1, Date.now() - MAX_DELAY_MS - 1_000, org.orgId, person.id],
        );
        assert.equal(moved.rowCount, 1);
      } finally {
        await sql.end();
      }
      assert.equal((await passwordLogin(0, person.email, 'wrong')).status, 401, `failure ${MAX_CONSECUTIVE_FAILURES}, on one replica`);
      const locked = await passwordLogin(1, person.email, PASSWORD);
      assert.equal(locked.status, 429);
      assert.match(locked.body.errors[0].message, new RegExp(`locked after ${MAX_CONSECUTIVE_FAILURES} consecutive failed attempts`));
      assert.equal(locked.headers.get('retry-after'), null, 'a lock has no retry time');
      assert.equal((await passwordLogin(0, person.email, PASSWORD)).status, 429, 'locked on the replica that counted it too');

      assert.equal((await on(1).t.call('DELETE', `/persons/${person.id}/authn-attempts`, { as: org })).status, 204);
      assert.equal((await passwordLogin(0, person.email, PASSWORD)).status, 200, 'a reset on one replica opens the other');
    });

    it(`lets at most ${FREE_ATTEMPTS} of 30 concurrent failed logins, split over both replicas, be counted and tested`, async (t) => {
      const person = await personWithPassword();
      const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => passwordLogin(i, person.email, 'wrong')));
      const tested = answers.filter((answer) => answer.status === 401).length;
      t.diagnostic(`${tested} of 30 were tested`);
      assert.ok(tested >= 1 && tested <= FREE_ATTEMPTS, `${tested} tested`);
      assert.deepEqual(new Set(answers.filter((answer) => answer.status !== 401).map(outcomeOf)), new Set(['TOO_MANY_ATTEMPTS']));
      assert.equal((await counters(0, person.id))[0].failures, tested, 'every tested attempt counted once, none more');
    });

    it("shares an identity's 5 initiates in 10 minutes: the sixth, on either replica, sends nothing", async () => {
      const identity = await desk.provision();
      const verifier = await desk.verifier();
      for (let i = 0; i < 5; i++) await verifier.started(on(i), identity);
      const sent = smtp.messages.length;
      for (const i of [5, 6]) {
        const refused = await verifier.initiate(on(i), identity.id);
        assert.equal(outcomeOf(refused), 'IDENTITY_RATE_LIMITED', JSON.stringify(refused.body));
        assert.ok(Number(refused.headers.get('retry-after')) > 0);
      }
      assert.equal(smtp.messages.length, sent, 'no email for a refused initiate');
    });

    it("shares an identity's 10 verify attempts an hour over its verifications and both replicas", async () => {
      const identity = await desk.provision();
      const verifier = await desk.verifier();
      for (let round = 0; round < 2; round++) {
        const { id, code } = await verifier.started(on(round), identity);
        for (let i = 0; i < 5; i++) assert.equal(outcomeOf(await verifier.verify(on(i), id, wrongCode(code))), 'verified:false');
      }
      const { id, code } = await verifier.started(on(0), identity);
      for (const i of [0, 1]) assert.equal(outcomeOf(await verifier.verify(on(i), id, code)), 'IDENTITY_RATE_LIMITED', 'the right code is not judged');
    });

    it("shares an operator's 30 attempts a minute: 30 concurrent wrong codes over both replicas use them up", async () => {
      const verifier = await desk.verifier();
      // Six callers, one verification each: a second initiate for a caller would close their first.
      const verifications: { id: string; code: string }[] = [];
      for (let caller = 0; caller < 6; caller++) verifications.push(await verifier.started(on(caller), await desk.provision()));
      const answers = await Promise.all(
        verifications.flatMap(({ id, code }) => Array.from({ length: 5 }, (_, i) => verifier.verify(on(i), id, wrongCode(code)))),
      );
      assert.deepEqual(answers.map(outcomeOf), Array(30).fill('verified:false'));
      const fresh = await verifier.started(on(1), await desk.provision());
      for (const i of [0, 1]) {
        const refused = await verifier.verify(on(i), fresh.id, fresh.code);
        assert.equal(outcomeOf(refused), 'OPERATOR_RATE_LIMITED');
        assert.ok(Number(refused.headers.get('retry-after')) > 0);
      }
    });
  });
}
