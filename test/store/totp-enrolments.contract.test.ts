import assert from 'node:assert/strict';
import { it } from 'node:test';
import { newId } from '../../src/crypto/ids.ts';
import type { OrganizationStore } from '../../src/store/organizations/store.ts';
import type { PersonStore } from '../../src/store/persons/store.ts';
import type { TotpEnrolment, TotpEnrolmentStore } from '../../src/store/totp-enrolments/store.ts';
import { contractOnEveryBackend, person, storedOrg } from './contract-harness.ts';

const enrolment = (orgId: string, personId: string, expiresAt = 2_000): TotpEnrolment => ({
  id: newId('enr'),
  orgId,
  personId,
  label: 'phone',
  params: { recovery_codes_total: 10, algorithm: 'SHA1', digits: 6, period: 30 },
  secret: { sealed_key: 'sealed', recovery_code_hashes: ['h1'] },
  createdAt: 1_000,
  expiresAt,
});

contractOnEveryBackend<TotpEnrolmentStore & PersonStore & OrganizationStore>('TOTP enrolment store', (t) => {
  it('keeps an enrolment for its person until it expires, never for another person or organisation', async () => {
    const { store } = t;
    const org = await storedOrg(store);
    const other = await storedOrg(store);
    const p = person(org.id);
    await store.createPerson(p);
    const e = enrolment(org.id, p.id);
    assert.equal(await store.createTotpEnrolment(e), true);
    assert.deepEqual(await store.getTotpEnrolment(org.id, p.id, e.id, 1_999), e);
    assert.equal(await store.getTotpEnrolment(org.id, p.id, e.id, 2_000), undefined, 'expired');
    assert.equal(await store.getTotpEnrolment(org.id, 'per_other', e.id, 1_500), undefined);
    assert.equal(await store.getTotpEnrolment(other.id, p.id, e.id, 1_500), undefined);
    assert.equal(await store.createTotpEnrolment(enrolment(other.id, p.id)), false, 'not a person of that organisation');
  });

  it('spends an enrolment exactly once, even when confirmed concurrently', async () => {
    const { store } = t;
    const org = await storedOrg(store);
    const p = person(org.id);
    await store.createPerson(p);
    const e = enrolment(org.id, p.id);
    await store.createTotpEnrolment(e);
    const spent = await Promise.all(Array.from({ length: 10 }, () => store.spendTotpEnrolment(org.id, p.id, e.id)));
    assert.equal(spent.filter(Boolean).length, 1);
    assert.equal(await store.getTotpEnrolment(org.id, p.id, e.id, 1_500), undefined);
  });

  it('purges expired enrolments and goes with its person', async () => {
    const { store } = t;
    const org = await storedOrg(store);
    const p = person(org.id);
    await store.createPerson(p);
    const old = enrolment(org.id, p.id, 10);
    const fresh = enrolment(org.id, p.id, 5_000);
    await store.createTotpEnrolment(old);
    await store.createTotpEnrolment(fresh);
    assert.ok((await store.purgeExpiredTotpEnrolments(10, 100)) >= 1);
    assert.equal(await store.spendTotpEnrolment(org.id, p.id, old.id), false);
    await store.deletePerson(org.id, p.id, 3_000);
    assert.equal(await store.spendTotpEnrolment(org.id, p.id, fresh.id), false, 'deleted with the person');
  });
});
