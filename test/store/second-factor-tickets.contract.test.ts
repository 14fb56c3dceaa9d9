import assert from 'node:assert/strict';
import { it } from 'node:test';
import { hashSecret, randomSecret } from '../../src/crypto/ids.ts';
import type { OrganizationStore } from '../../src/store/organizations/store.ts';
import type { PersonStore } from '../../src/store/persons/store.ts';
import type { SecondFactorTicket, SecondFactorTicketStore } from '../../src/store/second-factor-tickets/store.ts';
import { contractOnEveryBackend, person, storedOrg } from './contract-harness.ts';

function ticket(orgId: string, personId: string, overrides: Partial<SecondFactorTicket> = {}): Omit<SecondFactorTicket, 'attempts'> {
  return {
    idHash: hashSecret(randomSecret()),
    orgId,
    personId,
    handle: { type: 'email_address', value: 'ada@example.com' },
    amr: ['pwd'],
    generation: 3,
    createdAt: 1_000,
    expiresAt: 10_000,
    ...overrides,
  };
}

const MAX = 5;

contractOnEveryBackend<SecondFactorTicketStore & PersonStore & OrganizationStore>('Second-factor ticket store', (t) => {
  it('gives a ticket back as it was stored, within its organisation, until it expires', async () => {
    const { store } = t;
    const a = await storedOrg(store);
    const b = await storedOrg(store);
    const p = person(a.id);
    await store.createPerson(p);
    const x = ticket(a.id, p.id);
    assert.equal(await store.createSecondFactorTicket(x), true);
    assert.deepEqual(await store.getSecondFactorTicket(a.id, x.idHash, 2_000, MAX), { ...x, attempts: 0 });
    assert.equal(await store.getSecondFactorTicket(b.id, x.idHash, 2_000, MAX), undefined, 'another organisation');
    assert.equal(await store.getSecondFactorTicket(a.id, x.idHash, 10_000, MAX), undefined, 'expired');
    assert.equal(await store.createSecondFactorTicket(ticket(b.id, p.id)), false, 'a person of another organisation is nobody there');
  });

  it('counts attempts up to the bound, and none after it or after expiry', async () => {
    const { store } = t;
    const a = await storedOrg(store);
    const p = person(a.id);
    await store.createPerson(p);
    const x = ticket(a.id, p.id);
    await store.createSecondFactorTicket(x);
    for (let n = 1; n <= MAX; n++) assert.equal((await store.countSecondFactorAttempt(a.id, x.idHash, 2_000, MAX))?.attempts, n);
    assert.equal(await store.countSecondFactorAttempt(a.id, x.idHash, 2_000, MAX), undefined, 'the sixth is refused');
    assert.equal(await store.getSecondFactorTicket(a.id, x.idHash, 2_000, MAX), undefined, 'and the ticket no longer opens');
    const y = ticket(a.id, p.id);
    await store.createSecondFactorTicket(y);
    assert.equal(await store.countSecondFactorAttempt(a.id, y.idHash, 10_000, MAX), undefined, 'expired');
  });

  it('counts every one of many concurrent attempts, and admits no more than the bound', async () => {
    const { store } = t;
    const a = await storedOrg(store);
    const p = person(a.id);
    await store.createPerson(p);
    const x = ticket(a.id, p.id);
    await store.createSecondFactorTicket(x);
    const counted = await Promise.all(Array.from({ length: 20 }, () => store.countSecondFactorAttempt(a.id, x.idHash, 2_000, MAX)));
    assert.deepEqual(
      counted
        .filter((c) => c !== undefined)
        .map((c) => c.attempts)
        .sort(),
      [1, 2, 3, 4, 5],
    );
  });

  it('is spent by exactly one of many concurrent spends, and goes with its person', async () => {
    const { store } = t;
    const a = await storedOrg(store);
    const p = person(a.id);
    await store.createPerson(p);
    const x = ticket(a.id, p.id);
    await store.createSecondFactorTicket(x);
    const spends = await Promise.all(Array.from({ length: 20 }, () => store.spendSecondFactorTicket(a.id, x.idHash)));
    assert.equal(spends.filter(Boolean).length, 1);
    const y = ticket(a.id, p.id);
    await store.createSecondFactorTicket(y);
    await store.deletePerson(a.id, p.id, 3_000);
    assert.equal(await store.getSecondFactorTicket(a.id, y.idHash, 2_000, MAX), undefined);
    assert.equal(await store.createSecondFactorTicket(ticket(a.id, p.id)), false, 'nor is one made for a deleted person');
  });

  it('purges expired tickets, and only those', async () => {
    const { store } = t;
    const a = await storedOrg(store);
    const p = person(a.id);
    await store.createPerson(p);
    const old = ticket(a.id, p.id, { expiresAt: 5_000 });
    const live = ticket(a.id, p.id, { expiresAt: 50_000 });
    for (const x of [old, live]) await store.createSecondFactorTicket(x);
    assert.ok((await store.purgeSecondFactorTickets(6_000, 100)) >= 1);
    assert.equal(await store.getSecondFactorTicket(a.id, old.idHash, 0, MAX), undefined);
    assert.ok(await store.getSecondFactorTicket(a.id, live.idHash, 6_000, MAX));
  });
});
