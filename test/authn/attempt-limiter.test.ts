import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AttemptLimiter } from '../../src/authn/attempt-limiter.ts';
import { delayAfter, MAX_DELAY_MS } from '../../src/authn/attempt-policy.ts';
import { attemptCounter } from '../../src/authn/attempt-subject.ts';
import { credentialTypeContext } from '../../src/credentials/context.ts';
import { ApiError } from '../../src/errors/api-error.ts';
import { openStore } from '../../src/store/open-store.ts';
import type { Store } from '../../src/store/store.ts';
import { type Backend, backends } from '../helpers/backends.ts';
import { TEST_SECRET } from '../helpers/service.ts';
import { storedOrg } from '../store/contract-harness.ts';

/** The 429 an attempt gets, as [Retry-After or null, locked?]; fails when the attempt is allowed. */
async function refusal(attempt: Promise<unknown>): Promise<[string | null, boolean]> {
  try {
    await attempt;
  } catch (error) {
    assert.ok(error instanceof ApiError && error.code === 'TOO_MANY_ATTEMPTS' && error.status === 429, String(error));
    return [error.headers['retry-after'] ?? null, error.message.includes('locked')];
  }
  assert.fail('the attempt was allowed');
}

/** A counter of nobody's for the password type: the limiter does not look past the subject. */
const counter = (orgId: string, subject: string) => ({ orgId, subject, personId: null, credentialType: 'password' });

describe('attempt policy', () => {
  it('gives five attempts freely, then doubles the wait from one second up to fifteen minutes', () => {
    assert.deepEqual([0, 4, 5, 6, 7, 14, 15, 16, 99].map(delayAfter), [0, 0, 1000, 2000, 4000, 512_000, MAX_DELAY_MS, MAX_DELAY_MS, MAX_DELAY_MS]);
  });
});

for (const backend of backends()) {
  describe(`Attempt limiter over the store, on ${backend.name}`, () => {
    let database: Awaited<ReturnType<Backend['fresh']>>;
    let store: Store;
    let clock = Date.UTC(2031, 0, 1);
    const now = () => clock;

    before(async () => {
      database = await backend.fresh();
      store = (await openStore(database.url)).store;
    });
    after(async () => {
      await store.close();
      await database.drop();
    });

    it('allows five failures at once, then asks to wait as the policy says, to the second', async () => {
      const { id: orgId } = await storedOrg(store);
      const limiter = new AttemptLimiter(store, now);
      for (let i = 0; i < 5; i++) await (await limiter.begin(counter(orgId, 'per_a'))).failed();
      assert.deepEqual(await refusal(limiter.begin(counter(orgId, 'per_a'))), ['1', false]);
      clock += 999;
      assert.deepEqual(await refusal(limiter.begin(counter(orgId, 'per_a'))), ['1', false]);
      clock += 1;
      await (await limiter.begin(counter(orgId, 'per_a'))).failed();
      assert.deepEqual(await refusal(limiter.begin(counter(orgId, 'per_a'))), ['2', false]);
      clock += 2000;
      await (await limiter.begin(counter(orgId, 'per_a'))).failed();
      assert.deepEqual(await refusal(limiter.begin(counter(orgId, 'per_a'))), ['4', false]);
      assert.equal((await store.getAuthnAttempts(orgId, 'per_b')) ?? 'none', 'none', 'another subject is not affected');
      await (await limiter.begin(counter(orgId, 'per_b'))).failed();
    });

    it('resets on success, and a restart (a new limiter) remembers the count', async () => {
      const { id: orgId } = await storedOrg(store);
      for (let i = 0; i < 5; i++) await (await new AttemptLimiter(store, now).begin(counter(orgId, 'per_c'))).failed();
      const restarted = new AttemptLimiter(store, now);
      assert.deepEqual(await refusal(restarted.begin(counter(orgId, 'per_c'))), ['1', false]);
      clock += 1000;
      await (await restarted.begin(counter(orgId, 'per_c'))).succeeded();
      assert.equal(await store.getAuthnAttempts(orgId, 'per_c'), undefined);
      for (let i = 0; i < 5; i++) await (await restarted.begin(counter(orgId, 'per_c'))).failed();
    });

    it('takes back an abandoned attempt, and settles a ticket only once', async () => {
      const { id: orgId } = await storedOrg(store);
      const limiter = new AttemptLimiter(store, now);
      const ticket = await limiter.begin(counter(orgId, 'per_d'));
      await ticket.abandoned();
      await ticket.succeeded();
      assert.equal((await store.getAuthnAttempts(orgId, 'per_d'))?.failures, 0, 'uncounted, and the late success did nothing');
    });

    it('locks after 100 consecutive failures, without Retry-After, and no wait unlocks it', async () => {
      const { id: orgId } = await storedOrg(store);
      const limiter = new AttemptLimiter(store, now);
      for (let i = 0; i < 100; i++) {
        clock += MAX_DELAY_MS;
        await (await limiter.begin(counter(orgId, 'per_e'))).failed();
      }
      assert.deepEqual(await refusal(limiter.begin(counter(orgId, 'per_e'))), [null, true]);
      clock += 365 * 24 * 3600 * 1000;
      assert.deepEqual(await refusal(limiter.begin(counter(orgId, 'per_e'))), [null, true]);
      assert.equal((await store.getAuthnAttempts(orgId, 'per_e'))?.failures, 100);
    });

    it('lets exactly one of fifty concurrent attempts through at the last allowed failure, and at a delay', async () => {
      const { id: orgId } = await storedOrg(store);
      const limiter = new AttemptLimiter(store, now);
      for (let i = 0; i < 99; i++) await store.countAuthnAttemptIf(counter(orgId, 'per_f'), i, clock);
      clock += MAX_DELAY_MS;
      const outcomes = await Promise.allSettled(Array.from({ length: 50 }, () => limiter.begin(counter(orgId, 'per_f'))));
      assert.equal(outcomes.filter((o) => o.status === 'fulfilled').length, 1);
      assert.ok(outcomes.every((o) => o.status === 'fulfilled' || (o.reason instanceof ApiError && o.reason.code === 'TOO_MANY_ATTEMPTS')));
      assert.equal((await store.getAuthnAttempts(orgId, 'per_f'))?.failures, 100, 'never past the limit');

      for (let i = 0; i < 5; i++) await store.countAuthnAttemptIf(counter(orgId, 'per_g'), i, clock);
      clock += 1000;
      const delayed = await Promise.allSettled(Array.from({ length: 50 }, () => limiter.begin(counter(orgId, 'per_g'))));
      assert.equal(delayed.filter((o) => o.status === 'fulfilled').length, 1);
    });

    it('names a counter by a keyed hash of the handle and the credential type, alike in every spelling the caller canonicalised', () => {
      const { hashCode } = credentialTypeContext(TEST_SECRET);
      const target = { orgId: 'org_1', handle: { type: 'email_address', value: 'nobody@example.com' }, personId: null, credentialType: 'password' } as const;
      const { subject } = attemptCounter(target, hashCode);
      assert.match(subject, /^att_[A-Za-z0-9_-]{43}$/);
      assert.ok(!subject.includes('nobody'));
      assert.equal(attemptCounter(target, hashCode).subject, subject);
      assert.equal(attemptCounter({ ...target, personId: 'per_1' }, hashCode).subject, subject, 'a known handle is counted as an unknown one is');
      assert.notEqual(attemptCounter({ ...target, credentialType: 'totp' }, hashCode).subject, subject, 'each credential type has its own');
      assert.notEqual(attemptCounter({ ...target, handle: { type: 'phone_number', value: 'nobody@example.com' } }, hashCode).subject, subject);
      assert.notEqual(attemptCounter(target, credentialTypeContext(`${TEST_SECRET}!`).hashCode).subject, subject);
    });
  });
}
