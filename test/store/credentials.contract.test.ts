import assert from 'node:assert/strict';
import { it } from 'node:test';
import { newId } from '../../src/crypto/ids.ts';
import type { Credential, CredentialStore } from '../../src/store/credentials/store.ts';
import { ConflictError } from '../../src/store/errors.ts';
import type { OrganizationStore } from '../../src/store/organizations/store.ts';
import type { PersonStore } from '../../src/store/persons/store.ts';
import type { TransactionalStore } from '../../src/store/store.ts';
import type { TokenStore } from '../../src/store/tokens/store.ts';
import type { PagePosition } from '../../src/store/types.ts';
import { contractOnEveryBackend, person, revokedAt, storedOrg, token } from './contract-harness.ts';

function credential(orgId: string, personId: string, overrides: Partial<Credential> = {}): Omit<Credential, 'version' | 'lastUsed'> {
  return {
    id: newId('crd'),
    orgId,
    personId,
    type: 'totp',
    label: 'phone',
    params: { recovery_codes_total: 2 },
    secret: { key: 'sealed', codes: ['h1', 'h2'] },
    createdAt: 1_700_000_000_000,
    ...overrides,
  };
}

contractOnEveryBackend<CredentialStore & PersonStore & OrganizationStore & TokenStore & TransactionalStore>('Credential store', (t) => {
  it('creates, reads and deletes a credential only within its organisation and person', async () => {
    const { store } = t;
    const a = await storedOrg(store);
    const b = await storedOrg(store);
    const p = person(a.id);
    const q = person(a.id);
    await store.createPerson(p);
    await store.createPerson(q);
    const c = credential(a.id, p.id);
    assert.equal(await store.createCredential(c), true);
    assert.deepEqual(await store.getCredential(a.id, p.id, c.id), { ...c, version: 0, lastUsed: null });
    assert.equal(await store.getCredential(b.id, p.id, c.id), undefined, 'another organisation');
    assert.equal(await store.getCredential(a.id, q.id, c.id), undefined, 'another person');
    assert.equal(await store.deleteCredential(b.id, p.id, c.id, 5_000), false);
    assert.equal(await store.deleteCredential(a.id, q.id, c.id, 5_000), false);
    assert.equal(await store.deleteCredential(a.id, p.id, c.id, 5_000), true);
    assert.equal(await store.getCredential(a.id, p.id, c.id), undefined);
    assert.equal(await store.deleteCredential(a.id, p.id, c.id, 5_000), false, 'a second delete finds nothing');
  });

  it("deleting a credential raises its person's generation and revokes their opaque tokens in the same step", async () => {
    const { store } = t;
    const a = await storedOrg(store);
    const p = person(a.id);
    const q = person(a.id);
    await store.createPerson(p);
    await store.createPerson(q);
    const c = credential(a.id, p.id);
    await store.createCredential(c);
    const theirs = { ...token(a.id), subject: p.id };
    const others = { ...token(a.id), subject: q.id };
    for (const x of [theirs, others]) await store.insertToken(x);
    assert.equal(await store.deleteCredential(a.id, q.id, c.id, 6_000), false);
    assert.deepEqual(
      [(await store.getPerson(a.id, p.id))?.generation, (await store.getPerson(a.id, q.id))?.generation],
      [0, 0],
      'nothing deleted, nothing raised',
    );
    assert.equal(await store.deleteCredential(a.id, p.id, c.id, 7_000), true);
    assert.deepEqual([(await store.getPerson(a.id, p.id))?.generation, (await store.getPerson(a.id, q.id))?.generation], [1, 0]);
    assert.deepEqual(await revokedAt(store, theirs, others), [7_000, null]);
  });

  it('stores a credential unless its person holds one of the types, one decision for concurrent callers', async () => {
    const { store } = t;
    const a = await storedOrg(store);
    const p = person(a.id);
    await store.createPerson(p);
    await store.createCredential(credential(a.id, p.id, { type: 'password' }));
    const tries = Array.from({ length: 8 }, (_, i) => credential(a.id, p.id, { type: i % 2 ? 'totp' : 'public-key' }));
    const outcomes = await Promise.all(tries.map((c) => store.createCredentialUnlessHolding(c, ['totp', 'public-key'])));
    assert.deepEqual(outcomes.sort(), ['created', ...Array(7).fill('holding')]);
    const held = [...(await store.listCredentialsOfType(a.id, p.id, 'totp')), ...(await store.listCredentialsOfType(a.id, p.id, 'public-key'))];
    assert.equal(held.length, 1);
    assert.equal(await store.createCredentialUnlessHolding(credential(a.id, 'per_never_created'), ['totp']), 'no_person');
    const other = held[0]!.type === 'totp' ? 'public-key' : 'totp';
    assert.equal(await store.createCredentialUnlessHolding(credential(a.id, p.id, { type: other }), [held[0]!.type]), 'holding');
    assert.equal(await store.createCredentialUnlessHolding(credential(a.id, p.id, { type: 'password' }), [other]), 'created', 'none of those types is held');
  });

  /** A public-key credential with the WebAuthn credential id `webauthnId` (what the store reads of a passkey). */
  const passkey = (orgId: string, personId: string, webauthnId: string, at = 1_700_000_000_000) =>
    credential(orgId, personId, { id: newId('crd', at), type: 'public-key', secret: null, params: { webauthn_credential_id: webauthnId, public_key: 'AQID' } });
  const isPasskeyConflict = (error: unknown) => error instanceof ConflictError && error.subject === 'passkey';
  const passkeysOf = async (orgId: string, ...personIds: string[]) =>
    (await Promise.all(personIds.map((id) => t.store.listCredentialsOfType(orgId, id, 'public-key'))))
      .flat()
      .map((c) => [c.personId, c.params.webauthn_credential_id]);

  it("holds a passkey's WebAuthn credential id once per organisation (W3C WebAuthn §7.1 step 26): another person's, or the same person's again, through either create, throws ConflictError 'passkey' and stores nothing", async () => {
    const { store } = t;
    const a = await storedOrg(store);
    const b = await storedOrg(store);
    const [p, q] = [person(a.id), person(a.id)];
    for (const x of [p, q]) await store.createPerson(x);
    const id = newId('wid');
    assert.equal(await store.createCredential(passkey(a.id, p.id, id)), true);
    await assert.rejects(store.createCredential(passkey(a.id, q.id, id)), isPasskeyConflict);
    await assert.rejects(store.createCredential(passkey(a.id, p.id, id)), isPasskeyConflict, 'the same person again');
    await assert.rejects(store.createCredentialUnlessHolding(passkey(a.id, q.id, id), ['totp']), isPasskeyConflict);
    assert.deepEqual(await passkeysOf(a.id, p.id, q.id), [[p.id, id]]);
    // Another organisation is another relying party; other ids, and credentials of other types with that field, are not held to it.
    const r = person(b.id);
    await store.createPerson(r);
    assert.equal(await store.createCredential(passkey(b.id, r.id, id)), true);
    assert.equal(await store.createCredentialUnlessHolding(passkey(a.id, q.id, newId('wid')), ['totp']), 'created');
    const lookalike = credential(a.id, q.id, { type: 'totp', params: { webauthn_credential_id: id } });
    assert.equal(await store.createCredential(lookalike), true);
    // A person who is not one of the organisation is still 'no person', before the passkey is looked at.
    assert.equal(await store.createCredential(passkey(a.id, 'per_never_created', newId('wid'))), false);
    assert.equal(await store.createCredentialUnlessHolding(passkey(a.id, 'per_never_created', id), ['totp']), 'no_person');
  });

  it('refuses the passkey inside the caller’s transaction: the change it belongs to is rolled back whole', async () => {
    const { store } = t;
    const a = await storedOrg(store);
    const [p, q] = [person(a.id), person(a.id)];
    for (const x of [p, q]) await store.createPerson(x);
    const id = newId('wid');
    await store.createCredential(passkey(a.id, p.id, id));
    const before = credential(a.id, q.id, { type: 'password' });
    await assert.rejects(
      store.inTransaction(async (tx) => {
        await tx.createCredential(before);
        await tx.createCredential(passkey(a.id, q.id, id));
      }),
      isPasskeyConflict,
    );
    assert.equal(await store.getCredential(a.id, q.id, before.id), undefined, 'what the transaction wrote before is gone too');
  });

  it('of concurrent creations of one passkey for eight persons, through either create, exactly one is stored', async () => {
    const { store } = t;
    const a = await storedOrg(store);
    const persons = Array.from({ length: 8 }, () => person(a.id));
    for (const x of persons) await store.createPerson(x);
    const id = newId('wid');
    const outcomes = await Promise.allSettled(
      persons.map((x, i) => (i % 2 ? store.createCredential(passkey(a.id, x.id, id)) : store.createCredentialUnlessHolding(passkey(a.id, x.id, id), ['totp']))),
    );
    const stored = outcomes.filter((o) => o.status === 'fulfilled');
    assert.equal(stored.length, 1, JSON.stringify(outcomes));
    assert.ok(([true, 'created'] as unknown[]).includes((stored[0] as PromiseFulfilledResult<unknown>).value));
    for (const o of outcomes) if (o.status === 'rejected') assert.ok(isPasskeyConflict(o.reason), String(o.reason));
    assert.equal((await passkeysOf(a.id, ...persons.map((x) => x.id))).length, 1);
  });

  it('deletes a credential unless it is the last of the types, one decision for concurrent callers', async () => {
    const { store } = t;
    const a = await storedOrg(store);
    const p = person(a.id);
    await store.createPerson(p);
    const both = [credential(a.id, p.id, { type: 'totp' }), credential(a.id, p.id, { type: 'public-key' })];
    for (const c of both) await store.createCredential(c);
    const outcomes = await Promise.all(both.map((c) => store.deleteCredentialKeepingOneOf(a.id, p.id, c.id, ['totp', 'public-key'], 8_000)));
    assert.deepEqual(outcomes.sort(), ['deleted', 'last']);
    assert.equal((await store.getPerson(a.id, p.id))?.generation, 1, 'the one deletion raised the generation once');
    const left = await Promise.all(both.map((c) => store.getCredential(a.id, p.id, c.id)));
    assert.equal(left.filter(Boolean).length, 1, 'one of the two is kept');
    assert.equal(await store.deleteCredentialKeepingOneOf(a.id, p.id, 'crd_unknown', ['totp'], 9_000), 'not_found');
    assert.equal(await store.deleteCredentialKeepingOneOf(a.id, 'per_never_created', 'crd_unknown', ['totp'], 9_000), 'not_found');
  });

  it('keeps a null secret and a null label as null', async () => {
    const { store } = t;
    const a = await storedOrg(store);
    const p = person(a.id);
    await store.createPerson(p);
    const c = credential(a.id, p.id, { secret: null, label: null, type: 'public-key', params: { nested: { sign_count: 3, ok: true } } });
    await store.createCredential(c);
    assert.deepEqual(await store.getCredential(a.id, p.id, c.id), { ...c, version: 0, lastUsed: null });
  });

  it('stores nothing for a person of another organisation or no person at all', async () => {
    const { store } = t;
    const a = await storedOrg(store);
    const b = await storedOrg(store);
    const p = person(a.id);
    await store.createPerson(p);
    const elsewhere = credential(b.id, p.id);
    assert.equal(await store.createCredential(elsewhere), false);
    assert.equal(await store.getCredential(b.id, p.id, elsewhere.id), undefined);
    const nobody = credential(a.id, 'per_never_created');
    assert.equal(await store.createCredential(nobody), false);
    assert.equal(await store.getCredential(a.id, 'per_never_created', nobody.id), undefined);
  });

  it("deleting a person deletes their credentials with them, nobody else's", async () => {
    const { store } = t;
    const a = await storedOrg(store);
    const p = person(a.id);
    const q = person(a.id);
    await store.createPerson(p);
    await store.createPerson(q);
    const theirs = [credential(a.id, p.id), credential(a.id, p.id, { type: 'password' })];
    const others = credential(a.id, q.id);
    for (const c of [...theirs, others]) assert.equal(await store.createCredential(c), true);
    assert.equal(await store.deletePerson(a.id, p.id, 1), true);
    for (const c of theirs) assert.equal(await store.getCredential(a.id, p.id, c.id), undefined);
    assert.equal((await store.getCredential(a.id, q.id, others.id))?.id, others.id);
  });

  it("lists one person's credentials, all of them by type, in creation order", async () => {
    const { store } = t;
    const a = await storedOrg(store);
    const p = person(a.id);
    const q = person(a.id);
    await store.createPerson(p);
    await store.createPerson(q);
    const first = credential(a.id, p.id, { id: newId('crd', 1_700_000_000_001), type: 'password' });
    const second = credential(a.id, p.id, { id: newId('crd', 1_700_000_000_002), type: 'totp' });
    const third = credential(a.id, p.id, { id: newId('crd', 1_700_000_000_003), type: 'password' });
    for (const c of [third, first, second, credential(a.id, q.id, { type: 'password' })]) await store.createCredential(c);
    assert.deepEqual(
      (await store.listCredentialsOfType(a.id, p.id, 'password')).map((c) => c.id),
      [first.id, third.id],
    );
    assert.deepEqual(await store.listCredentialsOfType(a.id, p.id, 'public-key'), []);
    const all = await store.listCredentials(a.id, p.id, { position: { kind: 'first' }, limit: 10 });
    assert.deepEqual(
      all.items.map((c) => c.id),
      [first.id, second.id, third.id],
    );
    assert.equal(all.totalCount, 3, "counts this person's credentials only");
  });

  it("pages a person's credentials forwards, backwards and from the end", async () => {
    const { store } = t;
    const a = await storedOrg(store);
    const p = person(a.id);
    const q = person(a.id);
    await store.createPerson(p);
    await store.createPerson(q);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const c = credential(a.id, p.id, { id: newId('crd', 1_700_000_000_000 + i) });
      await store.createCredential(c);
      await store.createCredential(credential(a.id, q.id, { id: newId('crd', 1_700_000_000_000 + i) }));
      ids.push(c.id);
    }
    const page = async (position: PagePosition) => {
      const p2 = await store.listCredentials(a.id, p.id, { position, limit: 2 });
      return { ids: p2.items.map((c) => c.id), hasPrevious: p2.hasPrevious, hasNext: p2.hasNext, totalCount: p2.totalCount };
    };
    assert.deepEqual(await page({ kind: 'first' }), { ids: ids.slice(0, 2), hasPrevious: false, hasNext: true, totalCount: 5 });
    assert.deepEqual(await page({ kind: 'after', id: ids[1]! }), { ids: ids.slice(2, 4), hasPrevious: true, hasNext: true, totalCount: undefined });
    assert.deepEqual(await page({ kind: 'after', id: ids[3]! }), { ids: ids.slice(4), hasPrevious: true, hasNext: false, totalCount: undefined });
    assert.deepEqual(await page({ kind: 'before', id: ids[2]! }), { ids: ids.slice(0, 2), hasPrevious: false, hasNext: true, totalCount: undefined });
    assert.deepEqual(await page({ kind: 'last' }), { ids: ids.slice(3), hasPrevious: true, hasNext: false, totalCount: undefined });
  });

  it('sets last_used within the organisation only', async () => {
    const { store } = t;
    const a = await storedOrg(store);
    const b = await storedOrg(store);
    const p = person(a.id);
    await store.createPerson(p);
    const c = credential(a.id, p.id);
    await store.createCredential(c);
    assert.equal(await store.touchCredentialLastUsed(b.id, c.id, 5), false);
    assert.equal((await store.getCredential(a.id, p.id, c.id))?.lastUsed, null);
    assert.equal(await store.touchCredentialLastUsed(a.id, c.id, 1_800_000_000_000), true);
    assert.equal((await store.getCredential(a.id, p.id, c.id))?.lastUsed, 1_800_000_000_000);
    assert.equal(await store.touchCredentialLastUsed(a.id, 'crd_gone', 5), false);
  });

  it('updates params and secret only from the expected version, bumping it', async () => {
    const { store } = t;
    const a = await storedOrg(store);
    const b = await storedOrg(store);
    const p = person(a.id);
    await store.createPerson(p);
    const c = credential(a.id, p.id);
    await store.createCredential(c);
    const next = { params: { recovery_codes_total: 2, used: 1 }, secret: { key: 'sealed', codes: ['h2'] } };
    assert.equal(await store.updateCredentialIf(b.id, c.id, 0, next), false, 'another organisation');
    assert.equal(await store.updateCredentialIf(a.id, c.id, 1, next), false, 'a version it never had');
    assert.equal(await store.updateCredentialIf(a.id, c.id, 0, next), true);
    assert.equal(await store.updateCredentialIf(a.id, c.id, 0, { params: {}, secret: null }), false, 'the same version twice');
    const stored = await store.getCredential(a.id, p.id, c.id);
    assert.deepEqual({ params: stored?.params, secret: stored?.secret, version: stored?.version }, { ...next, version: 1 });
  });

  it('lets exactly one of fifty concurrent updates from one version win', async () => {
    const { store } = t;
    const a = await storedOrg(store);
    const p = person(a.id);
    await store.createPerson(p);
    const c = credential(a.id, p.id);
    await store.createCredential(c);
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => store.updateCredentialIf(a.id, c.id, 0, { params: { winner: i }, secret: { spent: ['h1'] } })),
    );
    assert.equal(results.filter(Boolean).length, 1);
    const stored = await store.getCredential(a.id, p.id, c.id);
    assert.equal(stored?.version, 1);
    assert.equal(stored?.params.winner, results.indexOf(true));
  });
});
