import assert from 'node:assert/strict';
import { it } from 'node:test';
import { newId } from '../../src/crypto/ids.ts';
import type { OrganizationStore } from '../../src/store/organizations/store.ts';
import type { EmailVerification, EmailVerificationStore } from '../../src/store/verifications/store.ts';
import { contractOnEveryBackend, storedOrg } from './contract-harness.ts';

const T0 = 1_000_000;
const TEN_MINUTES = 600_000;

function verification(orgId: string, overrides: Partial<EmailVerification> = {}): EmailVerification {
  return {
    id: newId('evf'),
    orgId,
    connectionId: 'con_1',
    identityId: 'idn_1',
    emailSentTo: 'ada@example.com',
    codeHash: 'keyed-hash',
    createdAt: T0,
    expiresAt: T0 + TEN_MINUTES,
    attempts: 0,
    state: 'open',
    closedReason: null,
    endedAt: null,
    ...overrides,
  };
}

contractOnEveryBackend<EmailVerificationStore & OrganizationStore>('Email verification store', (t) => {
  it('keeps a verification as it was created, in its own organisation only', async () => {
    const { store } = t;
    const a = await storedOrg(store);
    const b = await storedOrg(store);
    const v = verification(a.id);
    assert.deepEqual(await store.createEmailVerification(v), { replaced: [] });
    assert.deepEqual(await store.getEmailVerification(a.id, v.id), v);
    assert.equal(await store.getEmailVerification(b.id, v.id), undefined);
    assert.equal(await store.spendEmailVerificationIf(b.id, v.id, T0), undefined, "another organisation's is not there");
    assert.deepEqual(await store.takeEmailVerificationAttemptIf(b.id, v.id, T0, 5), { taken: false });
    assert.equal(await store.closeEmailVerification(b.id, v.id, 'replaced', T0), false);
    assert.equal((await store.getEmailVerification(a.id, v.id))?.state, 'open');
  });

  it('replaces the open verification of the same identity, and only that one', async () => {
    const { store } = t;
    const a = await storedOrg(store);
    const first = verification(a.id);
    const otherIdentity = verification(a.id, { identityId: 'idn_2' });
    const otherConnection = verification(a.id, { connectionId: 'con_2' });
    for (const v of [first, otherIdentity, otherConnection]) await store.createEmailVerification(v);
    const second = verification(a.id, { createdAt: T0 + 5 });
    assert.deepEqual(await store.createEmailVerification(second), { replaced: [first.id] });
    assert.deepEqual(await store.getEmailVerification(a.id, first.id), { ...first, state: 'closed', closedReason: 'replaced', endedAt: T0 + 5 });
    assert.equal((await store.getEmailVerification(a.id, second.id))?.state, 'open');
    assert.equal((await store.getEmailVerification(a.id, otherIdentity.id))?.state, 'open');
    assert.equal((await store.getEmailVerification(a.id, otherConnection.id))?.state, 'open');
    assert.equal(await store.spendEmailVerificationIf(a.id, first.id, T0 + 6), undefined, 'a replaced one cannot be spent');
  });

  it('leaves exactly one open of twenty concurrent initiates for one identity', async () => {
    const { store } = t;
    const a = await storedOrg(store);
    const all = Array.from({ length: 20 }, () => verification(a.id, { identityId: 'idn_race' }));
    await Promise.all(all.map((v) => store.createEmailVerification(v)));
    const states = await Promise.all(all.map(async (v) => (await store.getEmailVerification(a.id, v.id))?.state));
    assert.equal(states.filter((s) => s === 'open').length, 1);
    assert.equal(states.filter((s) => s === 'closed').length, 19);
  });

  it('is spent once, and not after it expired', async () => {
    const { store } = t;
    const a = await storedOrg(store);
    const v = verification(a.id);
    await store.createEmailVerification(v);
    assert.deepEqual(await store.spendEmailVerificationIf(a.id, v.id, T0 + 1), { ...v, state: 'spent', endedAt: T0 + 1 });
    assert.equal(await store.spendEmailVerificationIf(a.id, v.id, T0 + 2), undefined);
    assert.deepEqual(await store.takeEmailVerificationAttemptIf(a.id, v.id, T0 + 2, 5), { taken: false }, 'a spent one takes nothing');
    const expired = verification(a.id, { identityId: 'idn_expired' });
    await store.createEmailVerification(expired);
    assert.equal(await store.spendEmailVerificationIf(a.id, expired.id, expired.expiresAt), undefined, 'expired at expiresAt');
    assert.deepEqual(await store.takeEmailVerificationAttemptIf(a.id, expired.id, expired.expiresAt, 5), { taken: false });
    assert.equal((await store.getEmailVerification(a.id, expired.id))?.attempts, 0);
  });

  it('gives exactly one of twenty concurrent spends', async () => {
    const { store } = t;
    const a = await storedOrg(store);
    const v = verification(a.id);
    await store.createEmailVerification(v);
    const results = await Promise.all(Array.from({ length: 20 }, () => store.spendEmailVerificationIf(a.id, v.id, T0 + 1)));
    assert.equal(results.filter((r) => r !== undefined).length, 1);
  });

  it('takes attempts up to the limit before any code is compared, and gives one back', async () => {
    const { store } = t;
    const a = await storedOrg(store);
    const v = verification(a.id);
    await store.createEmailVerification(v);
    for (let n = 1; n <= 5; n++) assert.deepEqual(await store.takeEmailVerificationAttemptIf(a.id, v.id, T0 + n, 5), { taken: true, attempts: n });
    assert.deepEqual(await store.takeEmailVerificationAttemptIf(a.id, v.id, T0 + 6, 5), { taken: false }, 'no sixth');
    await store.giveBackEmailVerificationAttempt(a.id, v.id);
    assert.deepEqual(await store.takeEmailVerificationAttemptIf(a.id, v.id, T0 + 7, 5), { taken: true, attempts: 5 }, 'the one given back');
    assert.equal((await store.getEmailVerification(a.id, v.id))?.state, 'open', 'the caller closes it, not the count');
  });

  it('regression: concurrent guesses were compared before they were counted; now at most five of fifty are taken', async () => {
    const { store } = t;
    const a = await storedOrg(store);
    const v = verification(a.id);
    await store.createEmailVerification(v);
    const outcomes = await Promise.all(Array.from({ length: 50 }, () => store.takeEmailVerificationAttemptIf(a.id, v.id, T0 + 1, 5)));
    const taken = outcomes.filter((o) => o.taken);
    assert.equal(taken.length, 5);
    assert.deepEqual(taken.map((o) => o.taken && o.attempts).sort(), [1, 2, 3, 4, 5], 'each count seen once');
    assert.equal((await store.getEmailVerification(a.id, v.id))?.attempts, 5);
  });

  it('closes an open verification with its reason, once', async () => {
    const { store } = t;
    const a = await storedOrg(store);
    const v = verification(a.id);
    await store.createEmailVerification(v);
    assert.equal(await store.closeEmailVerification(a.id, v.id, 'email_not_sent', T0 + 1), true);
    assert.equal(await store.closeEmailVerification(a.id, v.id, 'identity_removed', T0 + 2), false);
    assert.deepEqual(await store.getEmailVerification(a.id, v.id), { ...v, state: 'closed', closedReason: 'email_not_sent', endedAt: T0 + 1 });
    assert.equal(await store.spendEmailVerificationIf(a.id, v.id, T0 + 3), undefined);
    const next = verification(a.id);
    assert.deepEqual(await store.createEmailVerification(next), { replaced: [] }, 'a closed one is not replaced again');
  });

  it('purges what expired before the given time', async () => {
    const { store } = t;
    const a = await storedOrg(store);
    const old = verification(a.id, { identityId: 'idn_old', expiresAt: 5_000 });
    const current = verification(a.id, { identityId: 'idn_current', expiresAt: 9_000_000_000_000 });
    await store.createEmailVerification(old);
    await store.createEmailVerification(current);
    assert.ok((await store.purgeEmailVerifications(6_000, 100)) >= 1);
    assert.equal(await store.getEmailVerification(a.id, old.id), undefined);
    assert.equal((await store.getEmailVerification(a.id, current.id))?.state, 'open');
  });
});
