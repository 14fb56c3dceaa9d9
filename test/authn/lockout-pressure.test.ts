import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Registry } from 'prom-client';
import { AttemptLimiter } from '../../src/authn/attempt-limiter.ts';
import { attemptMetrics } from '../../src/authn/attempt-metrics.ts';
import { delayAfter } from '../../src/authn/attempt-policy.ts';
import { attemptCounter } from '../../src/authn/attempt-subject.ts';
import { credentialTypeContext } from '../../src/credentials/context.ts';
import type { AttemptCounter } from '../../src/store/authn/store.ts';
import { openStore } from '../../src/store/open-store.ts';
import type { Store } from '../../src/store/store.ts';
import { type Backend, backends } from '../helpers/backends.ts';
import { ConsoleAgent, consolePerson, signInWithPassword } from '../helpers/console.ts';
import { startFrozenService } from '../helpers/frozen-service.ts';
import { TEST_SECRET } from '../helpers/service.ts';
import { person, storedOrg } from '../store/contract-harness.ts';

const { hashCode } = credentialTypeContext(TEST_SECRET);

for (const backend of backends()) {
  describe(`Lockout pressure is reported, on ${backend.name}`, () => {
    let database: Awaited<ReturnType<Backend['fresh']>>;
    let store: Store;
    const clock = { at: Date.UTC(2031, 0, 1) };
    before(async () => {
      database = await backend.fresh();
      store = (await openStore(database.url)).store;
    });
    after(async () => {
      await store.close();
      await database.drop();
    });

    /** `n` failed attempts on the counter, each as soon as the policy allows (the clock moved to that moment). */
    async function fail(limiter: AttemptLimiter, counter: AttemptCounter, n: number): Promise<void> {
      for (let i = 0; i < n; i++) {
        await (await limiter.begin(counter)).failed();
        clock.at += delayAfter(i + 1);
      }
    }

    it("writes authn.lockout_pressure once as a person's counter crosses 10, 50 and 100 (regression: lockout pressure was invisible)", async () => {
      const org = await storedOrg(store);
      const who = person(org.id);
      await store.createPerson(who);
      const limiter = new AttemptLimiter(store, () => clock.at);
      const counter = attemptCounter({ orgId: org.id, handle: who.handles[0]!, personId: who.id, credentialType: 'password' }, hashCode);
      await fail(limiter, counter, 100);
      await assert.rejects(limiter.begin(counter), /locked after 100/);
      const events = (await store.listAuditEvents(org.id, 'authn.lockout_pressure', { position: { kind: 'first' }, limit: 10 })).items;
      assert.deepEqual(
        events.map((e) => e.data),
        [10, 50, 100].map((failures) => ({ person_id: who.id, credential_type: 'password', failures, locks_at: 100 })),
      );
      assert.ok(!JSON.stringify(events).includes(who.handles[0]!.value), 'the handle is not in the log');
    });

    it('counts a stranger handle crossing in the metric only, never in the audit log', async () => {
      const org = await storedOrg(store);
      const registry = new Registry();
      const limiter = new AttemptLimiter(store, () => clock.at, attemptMetrics(registry));
      const counter = attemptCounter(
        { orgId: org.id, handle: { type: 'email_address', value: 'nobody@example.com' }, personId: null, credentialType: 'password' },
        hashCode,
      );
      await fail(limiter, counter, 50);
      const metric = await registry.getSingleMetricAsString('tessera_authn_lockout_pressure_total');
      assert.match(metric, /tessera_authn_lockout_pressure_total\{threshold="10"\} 1\n/);
      assert.match(metric, /tessera_authn_lockout_pressure_total\{threshold="50"\} 1/);
      assert.doesNotMatch(metric, /threshold="100"/);
      assert.equal((await store.listAuditEvents(org.id, undefined, { position: { kind: 'first' }, limit: 10 })).totalCount, 0);
    });
  });

  describe(`The console's person page shows the attempt counters, on ${backend.name}`, () => {
    const clock = { at: Date.UTC(2031, 5, 1, 12, 0, 0) };

    it('shows failures and until when the next attempt may be made, then open once that time has passed (frozen clock)', async () => {
      const t = await startFrozenService(backend, clock);
      try {
        const org = await t.org();
        const admin = await consolePerson(t, org, { roles: ['admin'] });
        const target = await consolePerson(t, org, { roles: [], secondFactor: false });
        const agent = new ConsoleAgent(t.url);
        await signInWithPassword(agent, org.orgId, admin);
        const counter = attemptCounter(
          { orgId: org.orgId, handle: { type: 'email_address', value: target.email }, personId: target.id, credentialType: 'password' },
          hashCode,
        );
        for (let failures = 0; failures < 6; failures++) assert.ok(await t.service.store.countAuthnAttemptIf(counter, failures, clock.at));
        const delayed = await agent.get(`/console/admin/persons/${target.id}`);
        assert.match(delayed.html, /<h2 id="attempts">Failed sign-in attempts<\/h2>/);
        const until = new Date(clock.at + delayAfter(6)).toISOString();
        assert.match(
          delayed.html,
          new RegExp(`<tr><th scope="row">password</th><td>6</td><td>.*?</td><td>next attempt not before <time datetime="${until.replace(/\./g, '\\.')}"`),
        );
        clock.at += delayAfter(6);
        const open = await agent.get(`/console/admin/persons/${target.id}`);
        assert.match(open.html, /<tr><th scope="row">password<\/th><td>6<\/td><td>.*?<\/td><td>open<\/td><\/tr>/);
        const none = await agent.get(`/console/admin/persons/${admin.id}`);
        assert.match(none.html, /No failed attempts are counted against this person\./);
      } finally {
        await t.close();
      }
    });
  });
}
