import assert from 'node:assert/strict';
import { it } from 'node:test';
import { newId } from '../../src/crypto/ids.ts';
import type { OrganizationStore } from '../../src/store/organizations/store.ts';
import type { PersonStore } from '../../src/store/persons/store.ts';
import type { WebAuthnChallenge, WebAuthnChallengeStore } from '../../src/store/webauthn-challenges/store.ts';
import { contractOnEveryBackend, person, storedOrg } from './contract-harness.ts';

function challenge(orgId: string, personId: string | null, overrides: Partial<WebAuthnChallenge> = {}): WebAuthnChallenge {
  return {
    id: newId('wch'),
    orgId,
    purpose: 'login',
    personId,
    subject: personId ?? 'hdl_unknown',
    challenge: 'q2VZvsFJz1K0nNn8qrt3tEmX6G2rYQZpIhT3k3A2nXI',
    createdAt: 1_000,
    expiresAt: 301_000,
    ...overrides,
  };
}

contractOnEveryBackend<WebAuthnChallengeStore & PersonStore & OrganizationStore>('WebAuthn challenge store', (t) => {
  it('gives a challenge back once, as it was stored', async () => {
    const { store } = t;
    const a = await storedOrg(store);
    const p = person(a.id);
    await store.createPerson(p);
    const c = challenge(a.id, p.id);
    await store.createWebAuthnChallenge(c);
    assert.deepEqual(await store.spendWebAuthnChallenge(a.id, c.id, 'login', 2_000), c);
    assert.equal(await store.spendWebAuthnChallenge(a.id, c.id, 'login', 2_000), undefined, 'spent');
  });

  it('keeps a login of an unknown handle, with no person and the keyed subject', async () => {
    const { store } = t;
    const a = await storedOrg(store);
    const c = challenge(a.id, null, { subject: 'hdl_abc' });
    await store.createWebAuthnChallenge(c);
    assert.deepEqual(await store.spendWebAuthnChallenge(a.id, c.id, 'login', 2_000), c);
  });

  it('is not found for another organisation or purpose, and stays for its own', async () => {
    const { store } = t;
    const a = await storedOrg(store);
    const b = await storedOrg(store);
    const c = challenge(a.id, null, { purpose: 'registration' });
    await store.createWebAuthnChallenge(c);
    assert.equal(await store.spendWebAuthnChallenge(b.id, c.id, 'registration', 2_000), undefined);
    assert.equal(await store.spendWebAuthnChallenge(a.id, c.id, 'login', 2_000), undefined);
    assert.equal((await store.spendWebAuthnChallenge(a.id, c.id, 'registration', 2_000))?.id, c.id);
  });

  it('regression: a registration challenge was spent by a caller for another person; now it stays for its own person', async () => {
    const { store } = t;
    const a = await storedOrg(store);
    const owner = person(a.id);
    const other = person(a.id);
    await store.createPerson(owner);
    await store.createPerson(other);
    const c = challenge(a.id, owner.id, { purpose: 'registration' });
    await store.createWebAuthnChallenge(c);
    assert.equal(await store.spendWebAuthnChallenge(a.id, c.id, 'registration', 2_000, other.id), undefined, "another person's");
    assert.deepEqual(await store.spendWebAuthnChallenge(a.id, c.id, 'registration', 2_000, owner.id), c, 'still there for its own person');
    const unknownHandle = challenge(a.id, null);
    await store.createWebAuthnChallenge(unknownHandle);
    assert.equal(await store.spendWebAuthnChallenge(a.id, unknownHandle.id, 'login', 2_000, owner.id), undefined, 'no person is nobody in particular');
    assert.equal((await store.spendWebAuthnChallenge(a.id, unknownHandle.id, 'login', 2_000))?.id, unknownHandle.id);
  });

  it('is spent but not answered once expired', async () => {
    const { store } = t;
    const a = await storedOrg(store);
    const c = challenge(a.id, null);
    await store.createWebAuthnChallenge(c);
    assert.equal(await store.spendWebAuthnChallenge(a.id, c.id, 'login', c.expiresAt), undefined, 'expired at expiresAt');
    assert.equal(await store.purgeExpiredWebAuthnChallenges(c.expiresAt, 100), 0, 'the expired one went when it was asked for');
  });

  it('purges only what has expired', async () => {
    const { store } = t;
    const a = await storedOrg(store);
    const old = challenge(a.id, null, { expiresAt: 5_000 });
    const current = challenge(a.id, null, { expiresAt: 9_000_000_000_000 });
    await store.createWebAuthnChallenge(old);
    await store.createWebAuthnChallenge(current);
    assert.ok((await store.purgeExpiredWebAuthnChallenges(6_000, 100)) >= 1);
    assert.equal(await store.spendWebAuthnChallenge(a.id, old.id, 'login', 1_000), undefined);
    assert.equal((await store.spendWebAuthnChallenge(a.id, current.id, 'login', 6_000))?.id, current.id);
  });

  it('goes with its person when the person is deleted', async () => {
    const { store } = t;
    const a = await storedOrg(store);
    const p = person(a.id);
    await store.createPerson(p);
    const c = challenge(a.id, p.id, { purpose: 'registration' });
    await store.createWebAuthnChallenge(c);
    assert.equal(await store.deletePerson(a.id, p.id, 2_000), true);
    assert.equal(await store.spendWebAuthnChallenge(a.id, c.id, 'registration', 2_000), undefined);
  });

  it('answers exactly one of fifty concurrent spends', async () => {
    const { store } = t;
    const a = await storedOrg(store);
    const c = challenge(a.id, null);
    await store.createWebAuthnChallenge(c);
    const results = await Promise.all(Array.from({ length: 50 }, () => store.spendWebAuthnChallenge(a.id, c.id, 'login', 2_000)));
    assert.equal(results.filter((r) => r !== undefined).length, 1);
  });
});
