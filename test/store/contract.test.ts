import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openStore } from '../../src/store/open-store.ts';
import { ConflictError, type Store } from '../../src/store/store.ts';
import { newId } from '../../src/crypto/ids.ts';
import type { ApiKey, OAuthClient, OpaqueToken, Organization, Person, SigningKey } from '../../src/store/types.ts';
import { backends } from '../helpers/backends.ts';

const config = { token_lifetime_ceiling: 3600, svid_jwks_urls: {}, allowed_spiffe_ids: [], email_sender: null };

function org(name = `org-${newId('n')}`): Organization {
  return { id: newId('org'), name, config, createdAt: Date.now() };
}
function key(orgId: string, name = 'first', kind: ApiKey['kind'] = 'admin'): ApiKey {
  return { id: newId('key'), orgId, name, kind, secretHash: newId('hash'), createdAt: Date.now() };
}
function person(orgId: string, email = `${newId('p')}@example.com`): Person {
  return { id: newId('per'), orgId, handles: [{ type: 'email_address', value: email }], roles: ['verifier'], console: true, createdAt: Date.now() };
}
function signingKey(kid = newId('kid')): SigningKey {
  return { kid, alg: 'ES256', publicJwk: { kty: 'EC', kid }, sealedPrivateJwk: 'sealed', status: 'active', createdAt: Date.now(), retiredAt: null };
}
function token(orgId: string, parentHash: string | null = null): OpaqueToken {
  return {
    hash: newId('h'), orgId, clientId: null, subject: 'per_x', scope: 'read', audience: ['https://api.example'], resource: [],
    act: { sub: 'cli_a', act: { sub: 'cli_b' } }, mayAct: { sub: 'cli_a' }, parentHash, issuedAt: 1_000, expiresAt: 2_000, revokedAt: null,
  };
}
function client(orgId: string): OAuthClient {
  return {
    id: newId('cli'), orgId, name: 'gateway', scopes: ['read', 'write'], grantTypes: ['client_credentials'],
    accessTokenDuration: 600, accessTokenFormat: 'opaque', secretHash: newId('hash'), createdAt: Date.now(),
  };
}

for (const backend of backends()) {
  describe(`Store contract on ${backend.name}`, () => {
    let store: Store;
    let database: Awaited<ReturnType<typeof backend.fresh>>;

    before(async () => {
      database = await backend.fresh();
      store = (await openStore(database.url)).store;
    });
    after(async () => {
      await store.close();
      await database.drop();
    });

    it('reports its dialect and answers a ping', async () => {
      assert.equal(store.dialect, backend.name);
      await store.ping();
    });

    it('creates an organisation with its first key, finds it by id and name, updates its config', async () => {
      const o = org();
      const k = key(o.id);
      await store.createOrganization(o, k);
      assert.deepEqual(await store.getOrganization(o.id), o);
      assert.deepEqual(await store.getOrganizationByName(o.name), o);
      assert.deepEqual(await store.findApiKeyBySecretHash(k.secretHash), k);
      const changed = { ...config, token_lifetime_ceiling: 900, svid_jwks_urls: { 'example.org': 'https://example.org/jwks' } };
      assert.deepEqual((await store.updateOrganizationConfig(o.id, () => changed))?.config, changed);
      assert.deepEqual((await store.getOrganization(o.id))?.config, changed);
      assert.equal(await store.updateOrganizationConfig(newId('org'), () => changed), undefined);
      await assert.rejects(store.updateOrganizationConfig(o.id, () => {
        throw new RangeError('refused');
      }), RangeError);
      assert.deepEqual((await store.getOrganization(o.id))?.config, changed, 'a refused update changes nothing');
    });

    it('applies concurrent configuration updates one after the other, losing none', async () => {
      const o = org();
      await store.createOrganization(o, key(o.id));
      const ids = Array.from({ length: 10 }, (_, i) => `spiffe://example.org/workload-${i}`);
      await Promise.all(ids.map((id) => store.updateOrganizationConfig(o.id, (current) => ({
        ...current, allowed_spiffe_ids: [...current.allowed_spiffe_ids, id],
      }))));
      assert.deepEqual([...(await store.getOrganization(o.id))!.config.allowed_spiffe_ids].sort(), [...ids].sort());
      assert.equal(await store.getOrganization(newId('org')), undefined);
    });

    it('finds an organisation with its key in one look-up, and never with a foreign key', async () => {
      const a = org();
      const b = org();
      const keyOfA = key(a.id);
      const keyOfB = key(b.id);
      await store.createOrganization(a, keyOfA);
      await store.createOrganization(b, keyOfB);
      assert.deepEqual(await store.findOrganizationAndKey(a.id, keyOfA.secretHash), { org: a, key: keyOfA });
      assert.deepEqual(await store.findOrganizationAndKey(a.id, keyOfB.secretHash), { org: a, key: undefined });
      assert.deepEqual(await store.findOrganizationAndKey(a.id, 'no-such-hash'), { org: a, key: undefined });
      assert.equal(await store.findOrganizationAndKey(newId('org'), keyOfA.secretHash), undefined);
    });

    it('refuses a second organisation with the same name and keeps nothing of it', async () => {
      const first = org();
      await store.createOrganization(first, key(first.id));
      const second = { ...org(), name: first.name };
      const secondKey = key(second.id);
      await assert.rejects(store.createOrganization(second, secondKey), (e: unknown) => e instanceof ConflictError && e.subject === 'organization_name');
      assert.equal(await store.getOrganization(second.id), undefined);
      assert.equal(await store.findApiKeyBySecretHash(secondKey.secretHash), undefined);
    });

    it('keeps API key names unique per organisation only, deletes by id and by name', async () => {
      const a = org();
      const b = org();
      await store.createOrganization(a, key(a.id));
      await store.createOrganization(b, key(b.id));
      const integration = key(a.id, 'crm', 'integration');
      await store.createApiKey(integration);
      await store.createApiKey(key(b.id, 'crm'));
      await assert.rejects(store.createApiKey(key(a.id, 'crm')), (e: unknown) => e instanceof ConflictError && e.subject === 'api_key_name');
      assert.equal(await store.deleteApiKey(b.id, integration.id), false, 'another organisation cannot delete it');
      assert.equal(await store.deleteApiKey(a.id, integration.id), true);
      assert.equal(await store.findApiKeyBySecretHash(integration.secretHash), undefined);
      assert.equal(await store.deleteApiKeysByName(a.id, 'first'), 1);
      assert.equal((await store.listApiKeys(a.id, { position: { kind: 'first' }, limit: 10 })).totalCount, 0);
      assert.equal((await store.listApiKeys(b.id, { position: { kind: 'first' }, limit: 10 })).totalCount, 2);
    });

    it('creates, finds, lists and deletes persons within their organisation only', async () => {
      const a = org();
      const b = org();
      await store.createOrganization(a, key(a.id));
      await store.createOrganization(b, key(b.id));
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
      const a = org();
      const b = org();
      await store.createOrganization(a, key(a.id));
      await store.createOrganization(b, key(b.id));
      const first = person(a.id, 'ada@example.com');
      await store.createPerson(first);
      await store.createPerson(person(b.id, 'ada@example.com')); // other organisation: allowed
      const second = person(a.id, 'grace@example.com');
      second.handles.push({ type: 'email_address', value: 'ada@example.com' });
      await assert.rejects(store.createPerson(second), (e: unknown) =>
        e instanceof ConflictError && e.subject === 'person_handle' && e.handle?.value === 'ada@example.com');
      assert.equal(await store.getPerson(a.id, second.id), undefined);
      assert.equal(await store.findPersonByHandle(a.id, { type: 'email_address', value: 'grace@example.com' }), undefined);
    });

    it('keeps handles in canonical form: any spelling of an address finds its person and is taken', async () => {
      const a = org();
      await store.createOrganization(a, key(a.id));
      const p = person(a.id, 'Jose\u0301@Example.COM'); // decomposed é, mixed case
      await store.createPerson(p);
      const stored = await store.getPerson(a.id, p.id);
      assert.deepEqual(stored?.handles, [{ type: 'email_address', value: 'jos\u00e9@example.com' }]);
      for (const spelling of ['jos\u00e9@example.com', 'JOS\u00c9@EXAMPLE.COM', 'jose\u0301@example.com', 'Jos\u00e9@eXample.com']) {
        assert.equal((await store.findPersonByHandle(a.id, { type: 'email_address', value: spelling }))?.id, p.id, spelling);
      }
      await assert.rejects(store.createPerson(person(a.id, 'JOS\u00c9@example.com')), (e: unknown) =>
        e instanceof ConflictError && e.subject === 'person_handle' && e.handle?.value === 'jos\u00e9@example.com');
    });

    it('commits concurrent single writes independently: a refused one takes no other with it', async () => {
      const a = org();
      await store.createOrganization(a, key(a.id));
      const names = ['one', 'two', 'first', 'three', 'four'];
      const results = await Promise.allSettled(names.map((name) => store.createApiKey(key(a.id, name))));
      assert.deepEqual(results.map((r) => r.status), ['fulfilled', 'fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
      assert.ok((results[2] as PromiseRejectedResult).reason instanceof ConflictError);
      const listed = await store.listApiKeys(a.id, { position: { kind: 'first' }, limit: 10 });
      assert.deepEqual(listed.items.map((k) => k.name).sort(), ['first', 'four', 'one', 'three', 'two']);
    });

    it('lets exactly one of many concurrent creations claim a handle', async () => {
      const a = org();
      await store.createOrganization(a, key(a.id));
      const results = await Promise.allSettled(Array.from({ length: 8 }, () => store.createPerson(person(a.id, 'race@example.com'))));
      assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1);
      assert.ok(results.every((r) => r.status === 'fulfilled' || r.reason instanceof ConflictError));
    });

    it('pages forwards, backwards and from the end with keyset cursors', async () => {
      const a = org();
      await store.createOrganization(a, key(a.id));
      const ids: string[] = [];
      for (let i = 0; i < 7; i++) {
        const p = { ...person(a.id), id: newId('per', 1_700_000_000_000 + i) };
        await store.createPerson(p);
        ids.push(p.id);
      }
      const page = (position: Parameters<Store['listPersons']>[1]['position']) => store.listPersons(a.id, { position, limit: 3 });
      const summary = (p: Awaited<ReturnType<typeof page>>) => ({
        ids: p.items.map((x) => x.id), hasPrevious: p.hasPrevious, hasNext: p.hasNext, totalCount: p.totalCount,
      });
      assert.deepEqual(summary(await page({ kind: 'first' })), { ids: ids.slice(0, 3), hasPrevious: false, hasNext: true, totalCount: 7 });
      assert.deepEqual(summary(await page({ kind: 'after', id: ids[2]! })), { ids: ids.slice(3, 6), hasPrevious: true, hasNext: true, totalCount: undefined });
      assert.deepEqual(summary(await page({ kind: 'after', id: ids[5]! })), { ids: ids.slice(6), hasPrevious: true, hasNext: false, totalCount: undefined });
      assert.deepEqual(summary(await page({ kind: 'before', id: ids[3]! })), { ids: ids.slice(0, 3), hasPrevious: false, hasNext: true, totalCount: undefined });
      assert.deepEqual(summary(await page({ kind: 'before', id: ids[5]! })), { ids: ids.slice(2, 5), hasPrevious: true, hasNext: true, totalCount: undefined });
      assert.deepEqual(summary(await page({ kind: 'last' })), { ids: ids.slice(4), hasPrevious: true, hasNext: false, totalCount: undefined });
    });

    it('creates, finds, lists, re-keys and deletes OAuth2 clients within their organisation only', async () => {
      const a = org();
      const b = org();
      await store.createOrganization(a, key(a.id));
      await store.createOrganization(b, key(b.id));
      const c = client(a.id);
      await store.createClient(c);
      assert.deepEqual(await store.getClient(a.id, c.id), c);
      assert.deepEqual(await store.findClient(c.id), c);
      assert.deepEqual(await store.findClientWithConfig(c.id), { client: c, config });
      assert.equal(await store.findClientWithConfig(newId('cli')), undefined);
      assert.equal(await store.getClient(b.id, c.id), undefined);
      assert.deepEqual((await store.listClients(a.id, { position: { kind: 'first' }, limit: 5 })).items, [c]);
      assert.equal(await store.replaceClientSecret(b.id, c.id, 'other'), false);
      assert.equal(await store.replaceClientSecret(a.id, c.id, 'rotated'), true);
      assert.equal((await store.findClient(c.id))?.secretHash, 'rotated');
      assert.equal(await store.deleteClient(b.id, c.id, 1), false);
      assert.equal(await store.deleteClient(a.id, c.id, 1), true);
      assert.equal(await store.findClient(c.id), undefined);
    });
  });

  describe(`Token tables on ${backend.name}`, () => {
    let store: Store;
    let database: Awaited<ReturnType<typeof backend.fresh>>;
    let orgId: string;
    before(async () => {
      database = await backend.fresh();
      store = (await openStore(database.url)).store;
      const o = org();
      await store.createOrganization(o, key(o.id));
      orgId = o.id;
    });
    after(async () => {
      await store.close();
      await database.drop();
    });

    it('keeps one active signing key even when replicas race to create it, and rotates atomically', async () => {
      const candidates = Array.from({ length: 5 }, () => signingKey());
      const winners = await Promise.all(candidates.map((c) => store.ensureActiveSigningKey(c)));
      assert.equal(new Set(winners.map((w) => w.kid)).size, 1, 'every replica sees the same active key');
      const next = signingKey();
      await store.rotateSigningKey(next, 5_000);
      const keys = await store.listSigningKeys();
      assert.deepEqual(keys.map((k) => [k.kid, k.status, k.retiredAt]), [[next.kid, 'active', null], [winners[0]!.kid, 'retired', 5_000]]);
      assert.deepEqual(keys[0], next);
    });

    it('stores opaque tokens by hash and revokes a token with everything exchanged from it', async () => {
      const root = token(orgId);
      const child = token(orgId, root.hash);
      const grandchild = token(orgId, child.hash);
      const sibling = token(orgId);
      for (const t of [root, child, grandchild, sibling]) await store.insertToken(t);
      assert.deepEqual(await store.findToken(grandchild.hash), grandchild);
      assert.equal(await store.revokeTokenTree(child.hash, 7_000), 2, 'the child and its descendant');
      assert.equal((await store.findToken(root.hash))?.revokedAt, null, 'the parent stays');
      assert.equal((await store.findToken(grandchild.hash))?.revokedAt, 7_000);
      assert.equal(await store.revokeTokenTree(root.hash, 8_000), 1, 'already revoked ones keep their time');
      assert.equal((await store.findToken(child.hash))?.revokedAt, 7_000);
      assert.equal((await store.findToken(sibling.hash))?.revokedAt, null);
      assert.equal(await store.findToken('nope'), undefined);
    });

    it('finds a revoked token anywhere up a lineage', async () => {
      const root = token(orgId);
      const child = token(orgId, root.hash);
      const grandchild = { ...token(orgId, child.hash), subject: 'per_other', clientId: 'cli_z' };
      for (const t of [root, child, grandchild]) await store.insertToken(t);
      assert.equal(await store.isLineageRevoked(grandchild.hash), false);
      await store.revokeTokenTree(root.hash, 50); // revokes all three
      await store.insertToken({ ...token(orgId, child.hash), hash: 'late-child' }); // as if exchanged concurrently
      assert.equal(await store.isLineageRevoked('late-child'), true);
    });

    const revokedAt = async (...tokens: OpaqueToken[]) => Promise.all(tokens.map(async (t) => (await store.findToken(t.hash))?.revokedAt));

    it('deleting a person revokes every token for them and everything exchanged from those, nothing else', async () => {
      const p = person(orgId);
      await store.createPerson(p);
      const other = org();
      await store.createOrganization(other, key(other.id));
      const theirs = { ...token(orgId), subject: p.id, clientId: 'cli_gateway' };
      const exchanged = { ...token(orgId, theirs.hash), subject: 'per_someone', clientId: 'cli_downstream' };
      const earlier = { ...token(orgId), subject: p.id, revokedAt: 5 };
      const unrelated = { ...token(orgId), subject: 'per_someone', clientId: 'cli_gateway' };
      const sameIdElsewhere = { ...token(other.id), subject: p.id };
      for (const t of [theirs, exchanged, earlier, unrelated, sameIdElsewhere]) await store.insertToken(t);

      assert.equal(await store.deletePerson(orgId, p.id, 70), true);
      assert.deepEqual(await revokedAt(theirs, exchanged, earlier, unrelated, sameIdElsewhere), [70, 70, 5, null, null]);
      assert.equal(await store.getPerson(orgId, p.id), undefined);
      assert.equal(await store.deletePerson(orgId, p.id, 80), false, 'a second delete finds nothing');
    });

    it('deleting an unknown person or client revokes nothing', async () => {
      const orphan = { ...token(orgId), subject: 'per_never_created', clientId: 'cli_never_created' };
      await store.insertToken(orphan);
      assert.equal(await store.deletePerson(orgId, 'per_never_created', 90), false);
      assert.equal(await store.deleteClient(orgId, 'cli_never_created', 90), false);
      assert.deepEqual(await revokedAt(orphan), [null]);
    });

    it('deleting a client revokes the tokens issued to it, its own, and everything exchanged from those', async () => {
      const c = client(orgId);
      await store.createClient(c);
      const issuedTo = { ...token(orgId), clientId: c.id, subject: 'per_someone' };
      const own = { ...token(orgId), clientId: c.id, subject: c.id };
      const exchanged = { ...token(orgId, issuedTo.hash), clientId: 'cli_downstream', subject: 'per_someone' };
      const unrelated = { ...token(orgId), clientId: 'cli_downstream', subject: 'per_someone' };
      for (const t of [issuedTo, own, exchanged, unrelated]) await store.insertToken(t);

      assert.equal(await store.deleteClient(orgId, c.id, 60), true);
      assert.deepEqual(await revokedAt(issuedTo, own, exchanged, unrelated), [60, 60, 60, null]);
      assert.equal(await store.findClient(c.id), undefined);
    });

    it('purges expired tokens in bounded batches and keeps current ones', async () => {
      const expired = [token(orgId), token(orgId), token(orgId)].map((t, i) => ({ ...t, expiresAt: 100 + i }));
      const current = { ...token(orgId), expiresAt: 9_000_000_000_000 };
      for (const t of [...expired, current]) await store.insertToken(t);
      assert.equal(await store.deleteExpiredTokens(1_000, 2), 2);
      assert.equal(await store.deleteExpiredTokens(1_000, 2), 1);
      for (const t of expired) assert.equal(await store.findToken(t.hash), undefined);
      assert.deepEqual(await store.findToken(current.hash), current);
    });

    it('records audit events and lists them by type with cursors', async () => {
      for (let i = 0; i < 5; i++) {
        await store.recordAuditEvent({ id: newId('evt', 1_700_000_000_000 + i), orgId, type: i % 2 ? 'token.exchange' : 'token.client_credentials', occurredAt: i, data: { i } });
      }
      const all = await store.listAuditEvents(orgId, undefined, { position: { kind: 'first' }, limit: 10 });
      assert.equal(all.totalCount, 5);
      const first = await store.listAuditEvents(orgId, 'token.client_credentials', { position: { kind: 'first' }, limit: 2 });
      assert.deepEqual(first.items.map((e) => e.data.i), [0, 2]);
      assert.equal(first.totalCount, 3);
      assert.equal(first.hasNext, true);
      const next = await store.listAuditEvents(orgId, 'token.client_credentials', { position: { kind: 'after', id: first.items[1]!.id }, limit: 2 });
      assert.deepEqual(next.items.map((e) => e.data.i), [4]);
      assert.deepEqual([next.hasPrevious, next.hasNext], [true, false]);
      const last = await store.listAuditEvents(orgId, 'token.exchange', { position: { kind: 'last' }, limit: 1 });
      assert.deepEqual(last.items.map((e) => e.data.i), [3]);
    });
  });

  describe(`Migrations on ${backend.name}`, () => {
    it('apply once and are idempotent on every later start', async () => {
      const database = await backend.fresh();
      const url = backend.name === 'sqlite' ? `sqlite:${process.env.TMPDIR ?? '/tmp'}/tessera-migrate-${newId('t')}.db` : database.url;
      const first = await openStore(url);
      assert.deepEqual(first.migrated, [1, 2, 3]);
      const o = org();
      await first.store.createOrganization(o, key(o.id));
      await first.store.close();
      const second = await openStore(url);
      assert.deepEqual(second.migrated, []);
      assert.deepEqual(await second.store.getOrganization(o.id), o, 'data survives a restart');
      await second.store.close();
      await database.drop();
    });
  });
}

describe('Store shutdown', () => {
  it('lets a request between two statements finish, then refuses work as unavailable', async () => {
    const { store } = await openStore('sqlite::memory:');
    const o = org();
    await store.createOrganization(o, key(o.id));
    // A handler that reads, yields to the event loop, then reads again while close() is called.
    const handler = (async () => {
      await store.getOrganization(o.id);
      await new Promise((resolve) => setTimeout(resolve, 20));
      return store.getOrganization(o.id);
    })();
    const closing = store.close();
    assert.deepEqual(await handler, o);
    await closing;
    await assert.rejects(store.getOrganization(o.id), (e: unknown) => (e as Error).name === 'StorageUnavailableError');
  });
});
