import assert from 'node:assert/strict';
import { it } from 'node:test';
import { newId } from '../../src/crypto/ids.ts';
import type { OrganizationStore } from '../../src/store/organizations/store.ts';
import type { PersonStore } from '../../src/store/persons/store.ts';
import { ConflictError } from '../../src/store/store.ts';
import type { TokenStore } from '../../src/store/tokens/store.ts';
import type { PagePosition } from '../../src/store/types.ts';
import { contractOnEveryBackend, person, revokedAt, storedOrg, token } from './contract-harness.ts';

contractOnEveryBackend<PersonStore & OrganizationStore & TokenStore>('Person store', (t) => {
  it('creates, finds, lists and deletes persons within their organisation only', async () => {
    const { store } = t;
    const a = await storedOrg(store);
    const b = await storedOrg(store);
    const p = person(a.id);
    p.handles.push({ type: 'phone_number', value: '+15550100' });
    await store.createPerson(p);
    assert.deepEqual(await store.getPerson(a.id, p.id), p);
    assert.equal(await store.getPerson(b.id, p.id), undefined);
    assert.deepEqual(await store.findPersonByHandle(a.id, { type: 'phone_number', value: '+15550100' }), p);
    assert.equal(await store.findPersonByHandle(b.id, { type: 'phone_number', value: '+15550100' }), undefined);
    assert.equal(await store.deletePerson(b.id, p.id, 1), false);
    assert.equal(await store.deletePerson(a.id, p.id, 1), true);
    assert.equal(await store.getPerson(a.id, p.id), undefined);
    assert.equal(await store.findPersonByHandle(a.id, p.handles[0]!), undefined, 'handles go with the person');
    await store.createPerson({ ...person(a.id), handles: p.handles }); // and are free again
  });

  it('refuses a taken handle, names it, and writes nothing of the person', async () => {
    const { store } = t;
    const a = await storedOrg(store);
    const b = await storedOrg(store);
    const first = person(a.id, 'ada@example.com');
    await store.createPerson(first);
    await store.createPerson(person(b.id, 'ada@example.com')); // other organisation: allowed
    const second = person(a.id, 'grace@example.com');
    second.handles.push({ type: 'email_address', value: 'ada@example.com' });
    await assert.rejects(
      store.createPerson(second),
      (e: unknown) => e instanceof ConflictError && e.subject === 'person_handle' && e.handle?.value === 'ada@example.com',
    );
    assert.equal(await store.getPerson(a.id, second.id), undefined);
    assert.equal(await store.findPersonByHandle(a.id, { type: 'email_address', value: 'grace@example.com' }), undefined);
  });

  it('keeps handles in canonical form: any spelling of an address finds its person and is taken', async () => {
    const { store } = t;
    const a = await storedOrg(store);
    const p = person(a.id, 'Jose\u0301@Example.COM'); // decomposed é, mixed case
    await store.createPerson(p);
    const stored = await store.getPerson(a.id, p.id);
    assert.deepEqual(stored?.handles, [{ type: 'email_address', value: 'jos\u00e9@example.com' }]);
    for (const spelling of ['jos\u00e9@example.com', 'JOS\u00c9@EXAMPLE.COM', 'jose\u0301@example.com', 'Jos\u00e9@eXample.com']) {
      assert.equal((await store.findPersonByHandle(a.id, { type: 'email_address', value: spelling }))?.id, p.id, spelling);
    }
    await assert.rejects(
      store.createPerson(person(a.id, 'JOS\u00c9@example.com')),
      (e: unknown) => e instanceof ConflictError && e.subject === 'person_handle' && e.handle?.value === 'jos\u00e9@example.com',
    );
  });

  it('lets exactly one of many concurrent creations claim a handle', async () => {
    const { store } = t;
    const a = await storedOrg(store);
    const results = await Promise.allSettled(Array.from({ length: 8 }, () => store.createPerson(person(a.id, 'race@example.com'))));
    assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1);
    assert.ok(results.every((r) => r.status === 'fulfilled' || r.reason instanceof ConflictError));
  });

  it('pages forwards, backwards and from the end with keyset cursors', async () => {
    const { store } = t;
    const a = await storedOrg(store);
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) {
      const p = { ...person(a.id), id: newId('per', 1_700_000_000_000 + i) };
      await store.createPerson(p);
      ids.push(p.id);
    }
    const page = (position: PagePosition) => store.listPersons(a.id, { position, limit: 3 });
    const summary = (p: Awaited<ReturnType<typeof page>>) => ({
      ids: p.items.map((x) => x.id),
      hasPrevious: p.hasPrevious,
      hasNext: p.hasNext,
      totalCount: p.totalCount,
    });
    assert.deepEqual(summary(await page({ kind: 'first' })), { ids: ids.slice(0, 3), hasPrevious: false, hasNext: true, totalCount: 7 });
    assert.deepEqual(summary(await page({ kind: 'after', id: ids[2]! })), { ids: ids.slice(3, 6), hasPrevious: true, hasNext: true, totalCount: undefined });
    assert.deepEqual(summary(await page({ kind: 'after', id: ids[5]! })), { ids: ids.slice(6), hasPrevious: true, hasNext: false, totalCount: undefined });
    assert.deepEqual(summary(await page({ kind: 'before', id: ids[3]! })), { ids: ids.slice(0, 3), hasPrevious: false, hasNext: true, totalCount: undefined });
    assert.deepEqual(summary(await page({ kind: 'before', id: ids[5]! })), { ids: ids.slice(2, 5), hasPrevious: true, hasNext: true, totalCount: undefined });
    assert.deepEqual(summary(await page({ kind: 'last' })), { ids: ids.slice(4), hasPrevious: true, hasNext: false, totalCount: undefined });
  });

  it('deleting a person revokes every token for them and everything exchanged from those, nothing else', async () => {
    const { store } = t;
    const { id: orgId } = await storedOrg(store);
    const other = await storedOrg(store);
    const p = person(orgId);
    await store.createPerson(p);
    const theirs = { ...token(orgId), subject: p.id, clientId: 'cli_gateway' };
    const exchanged = { ...token(orgId, theirs.hash), subject: 'per_someone', clientId: 'cli_downstream' };
    const earlier = { ...token(orgId), subject: p.id, revokedAt: 5 };
    const unrelated = { ...token(orgId), subject: 'per_someone', clientId: 'cli_gateway' };
    const sameIdElsewhere = { ...token(other.id), subject: p.id };
    for (const x of [theirs, exchanged, earlier, unrelated, sameIdElsewhere]) await store.insertToken(x);

    assert.equal(await store.deletePerson(orgId, p.id, 70), true);
    assert.deepEqual(await revokedAt(store, theirs, exchanged, earlier, unrelated, sameIdElsewhere), [70, 70, 5, null, null]);
    assert.equal(await store.getPerson(orgId, p.id), undefined);
    assert.equal(await store.deletePerson(orgId, p.id, 80), false, 'a second delete finds nothing');
  });

  it('raising a generation counts up and revokes every opaque token for them in the same step, nothing else', async () => {
    const { store } = t;
    const { id: orgId } = await storedOrg(store);
    const p = person(orgId);
    await store.createPerson(p);
    const theirs = { ...token(orgId), subject: p.id, clientId: 'cli_gateway' };
    const exchanged = { ...token(orgId, theirs.hash), subject: 'per_someone', clientId: 'cli_downstream' };
    const unrelated = { ...token(orgId), subject: 'per_someone', clientId: 'cli_gateway' };
    for (const x of [theirs, exchanged, unrelated]) await store.insertToken(x);

    assert.equal(await store.raisePersonGeneration(orgId, p.id, 40), 1);
    assert.equal(await store.raisePersonGeneration(orgId, p.id, 50), 2);
    assert.equal((await store.getPerson(orgId, p.id))?.generation, 2);
    assert.deepEqual(await revokedAt(store, theirs, exchanged, unrelated), [40, 40, null]);
    assert.equal(await store.raisePersonGeneration(orgId, 'per_never_created', 60), undefined);
  });

  it('a change of roles raises the generation; the same roles in another order, or console membership alone, do not', async () => {
    const { store } = t;
    const { id: orgId } = await storedOrg(store);
    const p = { ...person(orgId), roles: ['verifier' as const, 'admin' as const] };
    await store.createPerson(p);
    await store.createPerson({ ...person(orgId), roles: ['admin'] }); // another console administrator: p is not the last
    const theirs = { ...token(orgId), subject: p.id };
    await store.insertToken(theirs);

    const changedTo = async (access: Parameters<typeof store.setPersonAccess>[2], at: number) => {
      const outcome = await store.setPersonAccess(orgId, p.id, access, at);
      assert.equal(outcome.kind, 'changed');
      return outcome as Extract<typeof outcome, { kind: 'changed' }>;
    };
    assert.deepEqual(pick(await changedTo({ roles: ['admin', 'verifier'] }, 10)), { generation: 0, raised: false }, 'the same roles');
    assert.deepEqual(pick(await changedTo({ console: false }, 20)), { generation: 0, raised: false }, 'membership alone');
    const changed = await changedTo({ roles: ['admin'] }, 30);
    assert.deepEqual(
      { roles: changed.person.roles, console: changed.person.console, generation: changed.person.generation, raised: changed.raised },
      { roles: ['admin'], console: false, generation: 1, raised: true },
    );
    assert.deepEqual(await store.getPerson(orgId, p.id), changed.person);
    assert.deepEqual(await revokedAt(store, theirs), [30]);
    assert.deepEqual(await store.setPersonAccess(orgId, 'per_never_created', { roles: [] }, 40), { kind: 'not_found' });
  });

  it('regression: a console session demoted meanwhile undid its own demotion; a change by an actor holds only at their generation', async () => {
    const { store } = t;
    const { id: orgId } = await storedOrg(store);
    const admin = { ...person(orgId), roles: ['admin' as const] };
    const other = person(orgId);
    // The administrator who demotes them, so that they are not the organisation's last.
    const another = { ...person(orgId), roles: ['admin' as const] };
    for (const x of [admin, other, another]) await store.createPerson(x);
    const asAdmin = { personId: admin.id, generation: 0 };
    // Another administrator demotes them: their generation is 1 from now on.
    assert.equal((await store.setPersonAccess(orgId, admin.id, { roles: [], console: false }, 10)).kind, 'changed');
    // Their session, of generation 0, asks to keep their access as its page showed it: refused.
    assert.deepEqual(await store.setPersonAccess(orgId, admin.id, { roles: ['admin'], console: true }, 20, asAdmin), { kind: 'actor_ended' });
    assert.deepEqual(await store.setPersonAccess(orgId, other.id, { roles: ['admin'] }, 20, asAdmin), { kind: 'actor_ended' }, "nor anyone else's");
    assert.deepEqual(pick(await store.getPerson(orgId, admin.id)), { roles: [], console: false, generation: 1 });
    assert.equal((await store.getPerson(orgId, other.id))?.roles.length, 1, 'the other keeps verifier, unchanged');
    const current = await store.setPersonAccess(orgId, other.id, { console: false }, 30, { personId: admin.id, generation: 1 });
    assert.equal(current.kind, 'changed', 'at their current generation, it holds');
  });

  it('regression: concurrent role changes each raise the generation once (the compare holds the row)', async () => {
    const { store } = t;
    const { id: orgId } = await storedOrg(store);
    const p = person(orgId);
    await store.createPerson(p);
    await store.createPerson({ ...person(orgId), roles: ['admin'] }); // so that taking p's admin role away is allowed
    // Every set of roles but the person's own (['verifier']), each once: in whatever order the
    // database runs them, each differs from the one before it. (With ['verifier'] among them the
    // test passed only in the order written: run first, it changed nothing.)
    const changes = [['admin'], ['admin', 'verifier'], []] as const;
    await Promise.all(changes.map((roles, i) => store.setPersonAccess(orgId, p.id, { roles: [...roles] }, i)));
    // Each change saw the roles the one before it left, so every one of them was a change.
    assert.equal((await store.getPerson(orgId, p.id))?.generation, changes.length);
  });

  it("never takes away the organisation's last console administrator, by a change of access or a deletion, whoever asks", async () => {
    const { store } = t;
    const { id: orgId } = await storedOrg(store);
    const admin = { ...person(orgId), roles: ['admin' as const] };
    const bystander = person(orgId); // a console member without the admin role
    const outsider = { ...person(orgId), roles: ['admin' as const], console: false }; // an admin outside the console
    for (const x of [admin, bystander, outsider]) await store.createPerson(x);
    for (const access of [{ console: false }, { roles: [] }, { roles: ['verifier' as const] }]) {
      assert.deepEqual(await store.setPersonAccess(orgId, admin.id, access, 10), { kind: 'last_console_admin' }, JSON.stringify(access));
    }
    assert.equal(await store.deletePersonKeepingAConsoleAdmin(orgId, admin.id, 10), 'last_console_admin');
    assert.deepEqual(pick(await store.getPerson(orgId, admin.id)), { roles: ['admin'], console: true, generation: 0 }, 'nothing changed');
    // Others come and go as before; a change that keeps them an administrator passes.
    assert.equal((await store.setPersonAccess(orgId, bystander.id, { console: false }, 20)).kind, 'changed');
    assert.equal((await store.setPersonAccess(orgId, admin.id, { roles: ['admin', 'verifier'] }, 20)).kind, 'changed');
    assert.equal(await store.deletePersonKeepingAConsoleAdmin(orgId, outsider.id, 20), 'deleted');
    assert.equal(await store.deletePersonKeepingAConsoleAdmin(orgId, 'per_never_created', 20), 'not_found');
    // With a second console administrator, either may go.
    await store.setPersonAccess(orgId, bystander.id, { roles: ['admin'], console: true }, 30);
    assert.equal(await store.deletePersonKeepingAConsoleAdmin(orgId, admin.id, 40), 'deleted');
    assert.deepEqual(
      await store.setPersonAccess(orgId, bystander.id, { console: false }, 50),
      { kind: 'last_console_admin' },
      'and then the other is the last',
    );
  });

  it('deleting an unknown person revokes nothing', async () => {
    const { store } = t;
    const { id: orgId } = await storedOrg(store);
    const orphan = { ...token(orgId), subject: 'per_never_created' };
    await store.insertToken(orphan);
    assert.equal(await store.deletePerson(orgId, 'per_never_created', 90), false);
    assert.deepEqual(await revokedAt(store, orphan), [null]);
  });
});

/** The fields of a person or an outcome that a test compares. */
function pick(value: unknown): Record<string, unknown> {
  const v = value as { person?: Record<string, unknown>; raised?: boolean } & Record<string, unknown>;
  if (v.person) return { generation: v.person.generation, raised: v.raised };
  return { roles: v.roles, console: v.console, generation: v.generation };
}
