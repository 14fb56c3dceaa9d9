import assert from 'node:assert/strict';
import { it } from 'node:test';
import { PURGE_BATCH } from '../../src/concurrency/in-batches.ts';
import { hashSecret, newId, randomSecret } from '../../src/crypto/ids.ts';
import { purgeStaleRows } from '../../src/housekeeping/purge-stale-rows.ts';
import type { Store } from '../../src/store/store.ts';
import type { Organization, Person } from '../../src/store/types.ts';
import { contractOnEveryBackend, person, storedOrg } from './contract-harness.ts';

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
/** Rows of each kind a round adds: strangers' handles, visitors, identities, sessions. */
const PER_ROUND = 20;

/** One round of traffic at `at`: what strangers and visitors leave behind in each purged table. */
async function traffic(store: Store, org: Organization, signedIn: Person, at: number): Promise<void> {
  for (let i = 0; i < PER_ROUND; i++) {
    await store.takeRateLimit({ orgId: org.id, key: `verify-operator:${newId('op')}`, now: at, windowMs: 60 * MINUTE, limit: 10 });
    await store.createEmailVerification({
      id: newId('evf', at),
      orgId: org.id,
      connectionId: 'con_1',
      identityId: newId('idn'),
      emailSentTo: 'ada@example.com',
      codeHash: 'keyed-hash',
      createdAt: at,
      expiresAt: at + 10 * MINUTE,
      attempts: 0,
      state: 'open',
      closedReason: null,
      endedAt: null,
    });
    await store.createConsoleSession({
      idHash: hashSecret(randomSecret()),
      orgId: org.id,
      personId: signedIn.id,
      stage: 'signed_in',
      ticketHash: null,
      amr: ['pwd'],
      generation: 0,
      authTime: at,
      createdAt: at,
      lastSeenAt: at,
      expiresAt: at + 12 * 60 * MINUTE,
    });
    // A handle that names no one: a guess at a stranger's address.
    await store.countAuthnAttemptIf({ orgId: org.id, subject: newId('sub'), personId: null, credentialType: 'password' }, 0, at);
  }
}

const counts = async (store: Store) => ({
  rate_limits: await store.countRows('rate_limits'),
  email_verifications: await store.countRows('email_verifications'),
  console_sessions: await store.countRows('console_sessions'),
  authn_attempts: await store.countRows('authn_attempts'),
});

contractOnEveryBackend<Store>('Purge of stale rows, with a frozen clock,', (t) => {
  it('keeps each table bounded round after round, and keeps the attempt counter of a handle that names a person', async () => {
    const { store } = t;
    const org = await storedOrg(store);
    const signedIn = person(org.id);
    await store.createPerson(signedIn);
    const clock = { at: 1_800_000_000_000 };
    // The person's counter: 6 failures on their own handle, the lockout that must survive every purge.
    const lockout = { orgId: org.id, subject: newId('sub'), personId: signedIn.id, credentialType: 'password' };
    for (let failures = 0; failures < 6; failures++) assert.equal(await store.countAuthnAttemptIf(lockout, failures, clock.at), true);
    const bound = { rate_limits: 0, email_verifications: 0, console_sessions: 0, authn_attempts: 1 };

    for (let round = 0; round < 3; round++) {
      await traffic(store, org, signedIn, clock.at);
      const added = { rate_limits: PER_ROUND, email_verifications: PER_ROUND, console_sessions: PER_ROUND, authn_attempts: PER_ROUND + 1 };
      // A minute on, every row is still of use (a window, a code, a session, a delay): none goes.
      clock.at += MINUTE;
      await purgeStaleRows(store, clock.at);
      assert.deepEqual(await counts(store), added, `round ${round}: nothing in use is purged`);
      // Eight days on, past every keeping period (the longest: a stranger's counter, a week).
      clock.at += 8 * DAY;
      const purged = await purgeStaleRows(store, clock.at);
      assert.deepEqual(
        { rate_limits: purged.rate_limits, email_verifications: purged.email_verifications, console_sessions: purged.console_sessions },
        { rate_limits: PER_ROUND, email_verifications: PER_ROUND, console_sessions: PER_ROUND },
      );
      assert.equal(purged.authn_attempts, PER_ROUND, "only the strangers' counters go");
      assert.deepEqual(await counts(store), bound, `round ${round}: back to the bound`);
    }
    assert.equal((await store.getAuthnAttempts(org.id, lockout.subject))?.failures, 6, "the person's lockout counter is intact");
  });

  it("keeps a stranger's counter for a week after its last attempt, so its delay holds as long as a person's would", async () => {
    const { store } = t;
    const org = await storedOrg(store);
    const stranger = { orgId: org.id, subject: newId('sub'), personId: null, credentialType: 'password' };
    const at = 1_900_000_000_000;
    for (let failures = 0; failures < 6; failures++) await store.countAuthnAttemptIf(stranger, failures, at);
    await purgeStaleRows(store, at + 6 * DAY);
    assert.equal((await store.getAuthnAttempts(org.id, stranger.subject))?.failures, 6, 'six days on, still counted');
    await purgeStaleRows(store, at + 7 * DAY + 1);
    assert.equal(await store.getAuthnAttempts(org.id, stranger.subject), undefined, 'a week on, gone');
  });

  it(`regression: purges a flood in batches of ${PURGE_BATCH} (one unbounded DELETE, on a table a stranger grows at will), to the last row`, async () => {
    const { store } = t;
    const org = await storedOrg(store);
    const at = 1_950_000_000_000;
    const flood = PURGE_BATCH * 2 + 500;
    const kept = await store.countRows('authn_attempts');
    for (let i = 0; i < flood; i++)
      await store.countAuthnAttemptIf({ orgId: org.id, subject: newId('sub'), personId: null, credentialType: 'password' }, 0, at);
    const batches: number[] = [];
    const counting: Store = Object.create(store, {
      purgeAuthnAttemptsOfNoOne: {
        value: (before: number, limit: number) => {
          batches.push(limit);
          return store.purgeAuthnAttemptsOfNoOne(before, limit);
        },
      },
    });
    assert.equal((await purgeStaleRows(counting, at + 8 * DAY)).authn_attempts, flood);
    assert.deepEqual(batches, [PURGE_BATCH, PURGE_BATCH, PURGE_BATCH], 'three bounded deletes, the last one short');
    assert.equal(await store.countRows('authn_attempts'), kept, 'the flood is gone, what was kept before stays');
  });
});
