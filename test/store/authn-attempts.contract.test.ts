import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { AuthnAttemptStore } from '../../src/store/authn/store.ts';
import type { OrganizationStore } from '../../src/store/organizations/store.ts';
import type { PersonStore } from '../../src/store/persons/store.ts';
import { contractOnEveryBackend, person, storedOrg } from './contract-harness.ts';

/** A counter of nobody's: the store keys it by the subject alone. */
const counter = (orgId: string, subject: string, personId: string | null = null, credentialType = 'password') => ({ orgId, subject, personId, credentialType });

contractOnEveryBackend<AuthnAttemptStore & PersonStore & OrganizationStore>('Authentication attempt store', (t) => {
  it('counts from the expected count only, per organisation and subject, and clears', async () => {
    const { store } = t;
    const a = await storedOrg(store);
    const b = await storedOrg(store);
    assert.equal(await store.getAuthnAttempts(a.id, 'per_x'), undefined);
    assert.equal(await store.countAuthnAttemptIf(counter(a.id, 'per_x'), 0, 100), true, 'the first attempt inserts');
    assert.equal(await store.countAuthnAttemptIf(counter(a.id, 'per_x'), 0, 101), false, 'a stale count changes nothing');
    assert.equal(await store.countAuthnAttemptIf(counter(a.id, 'per_x'), 1, 102), true);
    assert.deepEqual(await store.getAuthnAttempts(a.id, 'per_x'), { failures: 2, lastAttemptAt: 102 });
    assert.equal(await store.getAuthnAttempts(b.id, 'per_x'), undefined, 'another organisation');
    assert.equal(await store.getAuthnAttempts(a.id, 'per_y'), undefined, 'another subject');
    await store.uncountAuthnAttempt(a.id, 'per_x');
    assert.deepEqual(await store.getAuthnAttempts(a.id, 'per_x'), { failures: 1, lastAttemptAt: 102 });
    await store.clearAuthnAttempts(a.id, 'per_x');
    assert.equal(await store.getAuthnAttempts(a.id, 'per_x'), undefined);
    assert.equal(await store.countAuthnAttemptIf(counter(a.id, 'per_x'), 0, 103), true, 'counting starts again');
  });

  it('never uncounts below zero', async () => {
    const { store } = t;
    const a = await storedOrg(store);
    await store.countAuthnAttemptIf(counter(a.id, 'per_z'), 0, 1);
    await store.uncountAuthnAttempt(a.id, 'per_z');
    await store.uncountAuthnAttempt(a.id, 'per_z');
    assert.equal((await store.getAuthnAttempts(a.id, 'per_z'))?.failures, 0);
    assert.equal(await store.countAuthnAttemptIf(counter(a.id, 'per_z'), 0, 2), true);
  });

  it('lets exactly one of fifty concurrent attempts count from one read', async () => {
    const { store } = t;
    const a = await storedOrg(store);
    for (const expected of [0, 1]) {
      const results = await Promise.all(Array.from({ length: 50 }, () => store.countAuthnAttemptIf(counter(a.id, 'per_race'), expected, 7)));
      assert.equal(results.filter(Boolean).length, 1, `from ${expected}`);
    }
    assert.equal((await store.getAuthnAttempts(a.id, 'per_race'))?.failures, 2);
  });

  it("lists and clears a person's counters (all, or of one credential type), nobody else's", async () => {
    const { store } = t;
    const a = await storedOrg(store);
    const p = person(a.id);
    const q = person(a.id);
    await store.createPerson(p);
    await store.createPerson(q);
    await store.countAuthnAttemptIf(counter(a.id, 'att_p_pwd', p.id, 'password'), 0, 10);
    await store.countAuthnAttemptIf(counter(a.id, 'att_p_pwd', p.id, 'password'), 1, 12);
    await store.countAuthnAttemptIf(counter(a.id, 'att_p2_pwd', p.id, 'password'), 0, 11);
    await store.countAuthnAttemptIf(counter(a.id, 'att_p_totp', p.id, 'totp'), 0, 13);
    await store.countAuthnAttemptIf(counter(a.id, 'att_q_pwd', q.id, 'password'), 0, 14);
    await store.countAuthnAttemptIf(counter(a.id, 'att_nobody'), 0, 15);
    assert.deepEqual(await store.listAuthnAttemptsOfPerson(a.id, p.id, []), [
      { credentialType: 'password', failures: 2, lastAttemptAt: 12 },
      { credentialType: 'password', failures: 1, lastAttemptAt: 11 },
      { credentialType: 'totp', failures: 1, lastAttemptAt: 13 },
    ]);
    assert.equal(await store.clearAuthnAttemptsOfPerson(a.id, p.id, [], 'totp'), 1);
    assert.deepEqual(
      (await store.listAuthnAttemptsOfPerson(a.id, p.id, [])).map((r) => r.credentialType),
      ['password', 'password'],
    );
    assert.equal(await store.clearAuthnAttemptsOfPerson(a.id, p.id, []), 2);
    assert.deepEqual(await store.listAuthnAttemptsOfPerson(a.id, p.id, []), []);
    assert.equal((await store.getAuthnAttempts(a.id, 'att_q_pwd'))?.failures, 1, "another person's");
    assert.equal((await store.getAuthnAttempts(a.id, 'att_nobody'))?.failures, 1, "an unknown handle's");
  });

  it('regression: a counter counted before its handle named the person could not be listed or reset; the subjects name it', async () => {
    const { store } = t;
    const a = await storedOrg(store);
    const p = person(a.id);
    await store.createPerson(p);
    await store.countAuthnAttemptIf(counter(a.id, 'att_before', null, 'password'), 0, 5);
    assert.deepEqual(await store.listAuthnAttemptsOfPerson(a.id, p.id, []), [], 'not by person');
    assert.deepEqual(await store.listAuthnAttemptsOfPerson(a.id, p.id, ['att_before']), [{ credentialType: 'password', failures: 1, lastAttemptAt: 5 }]);
    assert.equal(await store.clearAuthnAttemptsOfPerson(a.id, p.id, ['att_before'], 'totp'), 0, 'another type stays');
    assert.equal(await store.clearAuthnAttemptsOfPerson(a.id, p.id, ['att_before'], 'password'), 1);
  });

  it("deleting a person forgets their count, nobody else's", async () => {
    const { store } = t;
    const a = await storedOrg(store);
    const p = person(a.id);
    await store.createPerson(p);
    await store.countAuthnAttemptIf(counter(a.id, 'att_of_p', p.id), 0, 1);
    await store.countAuthnAttemptIf(counter(a.id, 'att_unknown'), 0, 1);
    assert.equal(await store.deletePerson(a.id, p.id, 2), true);
    assert.equal(await store.getAuthnAttempts(a.id, 'att_of_p'), undefined);
    assert.equal((await store.getAuthnAttempts(a.id, 'att_unknown'))?.failures, 1);
  });
});
