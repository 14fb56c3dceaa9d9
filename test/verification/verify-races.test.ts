import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Store } from '../../src/store/store.ts';
import { verificationHasher } from '../../src/verification/code.ts';
import { backends } from '../helpers/backends.ts';
import { startFrozenService, type TestClock } from '../helpers/frozen-service.ts';
import { type Response, TEST_SECRET, type TestOrg, type TestService } from '../helpers/service.ts';
import { type ScimTenant, scimTenant } from '../scim/scim-helpers.ts';
import { type Door, doorsOf, type Operators } from './doors.ts';
import { scimUser } from './harness.ts';

/** The code every verification here holds: the store keeps its hash instead of the one mailed. */
const CODE = '314159';
const TTL_MS = 10 * 60 * 1000;
const NO_OPEN = 'body.verification_id: no open verification has this id (unknown, expired, already used or closed)';

const refusal = (answer: Response) => [answer.status, answer.body.errors?.[0]?.code, answer.body.errors?.[0]?.message];

/** What another request does between two steps of a verify, once. */
type Meanwhile = {
  before: 'takeEmailVerificationAttemptIf' | 'getEmailVerification' | 'spendEmailVerificationIf' | 'getIdentity';
  act: (store: Store) => Promise<void>;
};

/**
 * A verify whose verification or identity another request changes between its steps (design
 * §6: each transition is one conditional statement): the answer and the audited reason.
 */
for (const backend of backends()) {
  describe(`A verify raced by other requests, on ${backend.name}`, () => {
    const clock: TestClock = { at: Date.UTC(2031, 0, 1) };
    let t: TestService;
    let org: TestOrg;
    let scim: ScimTenant;
    let door: Door;
    let operators: Operators;
    let meanwhile: Meanwhile | undefined;
    const hasher = verificationHasher(TEST_SECRET);

    const wrapStore = (store: Store): Store =>
      new Proxy(store, {
        get(target, property) {
          if (property === 'createEmailVerification') {
            const create: Store['createEmailVerification'] = (verification) =>
              target.createEmailVerification({ ...verification, codeHash: hasher.hashCode(verification.id, CODE) });
            return create;
          }
          const value = Reflect.get(target, property, target);
          if (typeof value !== 'function') return value;
          return async (...args: unknown[]) => {
            const armed = meanwhile;
            if (armed?.before === property) {
              meanwhile = undefined;
              await armed.act(target);
            }
            return value.apply(target, args);
          };
        },
      });

    before(async () => {
      t = await startFrozenService(backend, clock, { wrapStore });
      org = await t.org();
      scim = await scimTenant(t, org);
    });
    after(() => t.close());

    /** A fresh identity (and operators) with an open verification holding CODE. */
    const started = async () => {
      const made = await doorsOf(t, org);
      door = made.doors.find((d) => d.name === 'integration')!;
      operators = made.operators;
      const created = await scim.call('POST', '/Users', scimUser(`p.${Math.random().toString(36).slice(2)}@example.com`));
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const initiated = await door.initiate({ connection_id: scim.connectionId, identity_id: created.body.id });
      assert.equal(initiated.status, 201, JSON.stringify(initiated.body));
      const id: string = initiated.body.result.verification_id;
      const verify = () => door.verify({ verification_id: id, connection_id: scim.connectionId, code: CODE }, operators.verifier);
      const attempts = async () =>
        ((await t.call('GET', '/audit/events?type=verification.attempt&limit=100', { as: org })).body.result as { data: Record<string, unknown> }[])
          .map((event) => event.data)
          .filter((data) => data.verification_id === id)
          .map((data) => [data.outcome, data.reason]);
      return { id, identityId: created.body.id as string, verify, attempts };
    };

    it('the right code verifies (control)', async () => {
      const v = await started();
      assert.deepEqual((await v.verify()).body.result, { verified: true });
      assert.deepEqual(await v.attempts(), [['verified', null]]);
    });

    it('a right code whose spend another verify won meanwhile is 404, audited as no_longer_open', async () => {
      const v = await started();
      meanwhile = { before: 'spendEmailVerificationIf', act: async (store) => assert.ok(await store.spendEmailVerificationIf(org.orgId, v.id, clock.at)) };
      assert.deepEqual(refusal(await v.verify()), [404, 'NOT_FOUND', NO_OPEN]);
      assert.deepEqual(await v.attempts(), [['refused', 'no_longer_open']]);
    });

    it('a verification replaced meanwhile (before its attempt was taken) is 404, audited as no_longer_open', async () => {
      const v = await started();
      meanwhile = {
        before: 'takeEmailVerificationAttemptIf',
        act: async (store) => assert.ok(await store.closeEmailVerification(org.orgId, v.id, 'replaced', clock.at)),
      };
      assert.deepEqual(refusal(await v.verify()), [404, 'NOT_FOUND', NO_OPEN]);
      assert.deepEqual(await v.attempts(), [['refused', 'no_longer_open']]);
    });

    it('a verification closed meanwhile for five wrong codes is 429 closed, audited as too_many_attempts', async () => {
      const v = await started();
      meanwhile = {
        before: 'takeEmailVerificationAttemptIf',
        act: async (store) => assert.ok(await store.closeEmailVerification(org.orgId, v.id, 'too_many_attempts', clock.at)),
      };
      assert.deepEqual(refusal(await v.verify()), [429, 'TOO_MANY_VERIFICATION_ATTEMPTS', 'verification: closed after 5 wrong codes; initiate a new one']);
      assert.deepEqual(await v.attempts(), [['refused', 'too_many_attempts']]);
    });

    /** Five other verifies take every attempt and are still being judged. */
    const fiveInFlight = (id: string) => async (store: Store) => {
      for (let i = 0; i < 5; i++) assert.ok((await store.takeEmailVerificationAttemptIf(org.orgId, id, clock.at, 5)).taken);
    };

    it('every attempt taken by verifies still in flight is 429 in flight (not "closed"), audited as too_many_attempts', async () => {
      const v = await started();
      meanwhile = { before: 'takeEmailVerificationAttemptIf', act: fiveInFlight(v.id) };
      assert.deepEqual(refusal(await v.verify()), [
        429,
        'TOO_MANY_VERIFICATION_ATTEMPTS',
        'verification: all 5 attempts are taken by verifies still in progress; initiate a new one if none of them succeeds',
      ]);
      assert.deepEqual(await v.attempts(), [['refused', 'too_many_attempts']]);
    });

    it('every attempt taken in flight, one given back before the verification is read again: still 429 in flight, not "no open verification"', async () => {
      const v = await started();
      meanwhile = {
        before: 'takeEmailVerificationAttemptIf',
        act: async (store) => {
          await fiveInFlight(v.id)(store);
          // The next read is this verify's own, after its take failed: one of the five gives its attempt back first.
          meanwhile = { before: 'getEmailVerification', act: (s) => s.giveBackEmailVerificationAttempt(org.orgId, v.id) };
        },
      };
      assert.deepEqual(refusal(await v.verify()), [
        429,
        'TOO_MANY_VERIFICATION_ATTEMPTS',
        'verification: all 5 attempts are taken by verifies still in progress; initiate a new one if none of them succeeds',
      ]);
      assert.deepEqual(await v.attempts(), [['refused', 'too_many_attempts']]);
    });

    it('every attempt taken in flight and the verification expired meanwhile (at its very expiry) is 404, audited as no_longer_open', async () => {
      const v = await started();
      const expiresAt = clock.at + TTL_MS;
      meanwhile = {
        before: 'takeEmailVerificationAttemptIf',
        act: async (store) => {
          await fiveInFlight(v.id)(store);
          clock.at = expiresAt;
        },
      };
      assert.deepEqual(refusal(await v.verify()), [404, 'NOT_FOUND', NO_OPEN]);
      assert.deepEqual(await v.attempts(), [['refused', 'no_longer_open']]);
    });

    it('every attempt taken in flight and one of them verified meanwhile is 404, audited as no_longer_open', async () => {
      const v = await started();
      meanwhile = {
        before: 'takeEmailVerificationAttemptIf',
        act: async (store) => {
          await fiveInFlight(v.id)(store);
          assert.ok(await store.spendEmailVerificationIf(org.orgId, v.id, clock.at));
        },
      };
      assert.deepEqual(refusal(await v.verify()), [404, 'NOT_FOUND', NO_OPEN]);
      assert.deepEqual(await v.attempts(), [['refused', 'no_longer_open']]);
    });

    it('a verification purged meanwhile is 404, audited as no_longer_open', async () => {
      const v = await started();
      meanwhile = {
        before: 'takeEmailVerificationAttemptIf',
        act: async (store) => {
          assert.ok((await store.purgeEmailVerifications(clock.at + 2 * TTL_MS, 1000)) >= 1);
          assert.equal(await store.getEmailVerification(org.orgId, v.id), undefined);
        },
      };
      assert.deepEqual(refusal(await v.verify()), [404, 'NOT_FOUND', NO_OPEN]);
      assert.deepEqual(await v.attempts(), [['refused', 'no_longer_open']]);
    });

    it('a directory that fails at the deny-gate: nothing verified, the attempt given back, audited as source_unavailable', async () => {
      const v = await started();
      meanwhile = {
        before: 'getIdentity',
        act: async () => {
          throw new Error('the identity store is unavailable');
        },
      };
      const failed = await v.verify();
      assert.equal(failed.status, 500, JSON.stringify(failed.body));
      assert.deepEqual(await v.attempts(), [['refused', 'source_unavailable']]);
      const stored = await t.service.store.getEmailVerification(org.orgId, v.id);
      assert.deepEqual([stored?.state, stored?.attempts], ['open', 0]);
      assert.deepEqual((await v.verify()).body.result, { verified: true }, 'the code is still good');
    });
  });
}
