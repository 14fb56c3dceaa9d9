import assert from 'node:assert/strict';
import { it } from 'node:test';
import { hashSecret, randomSecret } from '../../src/crypto/ids.ts';
import type { ConsoleSession, ConsoleSessionStore } from '../../src/store/console-sessions/store.ts';
import type { OrganizationStore } from '../../src/store/organizations/store.ts';
import type { PersonStore } from '../../src/store/persons/store.ts';
import { contractOnEveryBackend, person, storedOrg } from './contract-harness.ts';

function session(orgId: string, personId: string, overrides: Partial<ConsoleSession> = {}): ConsoleSession {
  return {
    idHash: hashSecret(randomSecret()),
    orgId,
    personId,
    stage: 'signed_in',
    ticketHash: null,
    amr: ['pwd'],
    generation: 0,
    authTime: 1_000,
    createdAt: 1_000,
    lastSeenAt: 1_000,
    expiresAt: 100_000,
    ...overrides,
  };
}

contractOnEveryBackend<ConsoleSessionStore & PersonStore & OrganizationStore>('Console session store', (t) => {
  it('gives a session back as it was stored, until its absolute end', async () => {
    const { store } = t;
    const a = await storedOrg(store);
    const p = person(a.id);
    await store.createPerson(p);
    const s = session(a.id, p.id, { stage: 'second_factor', ticketHash: hashSecret(randomSecret()), amr: ['pwd'], generation: 2, authTime: 900 });
    await store.createConsoleSession(s);
    assert.deepEqual(await store.getConsoleSession(s.idHash, 2_000), s);
    assert.equal(await store.getConsoleSession(s.idHash, 100_000), undefined, 'at its end it is gone');
  });

  it('records activity, and ends one session or every session of a person', async () => {
    const { store } = t;
    const a = await storedOrg(store);
    const p = person(a.id);
    const other = person(a.id);
    await store.createPerson(p);
    await store.createPerson(other);
    const [one, two, theirs] = [session(a.id, p.id), session(a.id, p.id), session(a.id, other.id)];
    for (const s of [one, two, theirs]) await store.createConsoleSession(s);
    await store.touchConsoleSession(one.idHash, 5_000);
    assert.equal((await store.getConsoleSession(one.idHash, 6_000))?.lastSeenAt, 5_000);
    assert.equal(await store.deleteConsoleSession(one.idHash), true);
    assert.equal(await store.deleteConsoleSession(one.idHash), false, 'already ended');
    assert.equal(await store.deleteConsoleSessionsOfPerson(a.id, p.id), 1);
    assert.ok(await store.getConsoleSession(theirs.idHash, 6_000), "another person's session stays");
  });

  it('records a confirmation: the sign-in time and the activity move, nothing else', async () => {
    const { store } = t;
    const a = await storedOrg(store);
    const p = person(a.id);
    await store.createPerson(p);
    const s = session(a.id, p.id, { amr: ['pwd', 'otp', 'mfa'] });
    await store.createConsoleSession(s);
    assert.equal(await store.reauthenticateConsoleSession(s.idHash, 7_000), true);
    assert.deepEqual(await store.getConsoleSession(s.idHash, 8_000), { ...s, authTime: 7_000, lastSeenAt: 7_000 });
    assert.equal(await store.reauthenticateConsoleSession(hashSecret(randomSecret()), 7_000), false, 'no such session');
  });

  it('goes with its person', async () => {
    const { store } = t;
    const a = await storedOrg(store);
    const p = person(a.id);
    await store.createPerson(p);
    const s = session(a.id, p.id);
    await store.createConsoleSession(s);
    assert.equal(await store.deletePerson(a.id, p.id, 2_000), true);
    assert.equal(await store.getConsoleSession(s.idHash, 3_000), undefined);
  });

  it('purges sessions past their end or idle too long, and only those', async () => {
    const { store } = t;
    const a = await storedOrg(store);
    const p = person(a.id);
    await store.createPerson(p);
    const ended = session(a.id, p.id, { expiresAt: 5_000 });
    const idle = session(a.id, p.id, { lastSeenAt: 1_000, expiresAt: 90_000 });
    const live = session(a.id, p.id, { lastSeenAt: 9_000, expiresAt: 90_000 });
    for (const s of [ended, idle, live]) await store.createConsoleSession(s);
    // The purge is global (other tests' sessions may go too), so each session is looked at by itself.
    assert.ok((await store.purgeConsoleSessions(10_000, 2_000, 100)) >= 2);
    assert.equal(await store.getConsoleSession(idle.idHash, 0), undefined);
    assert.equal(await store.getConsoleSession(ended.idHash, 0), undefined);
    assert.ok(await store.getConsoleSession(live.idHash, 10_000));
  });
});
