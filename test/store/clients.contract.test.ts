import assert from 'node:assert/strict';
import { it } from 'node:test';
import { newId } from '../../src/crypto/ids.ts';
import type { ClientStore } from '../../src/store/clients/store.ts';
import type { OrganizationStore } from '../../src/store/organizations/store.ts';
import type { TokenStore } from '../../src/store/tokens/store.ts';
import { client, config, contractOnEveryBackend, revokedAt, storedOrg, token } from './contract-harness.ts';

contractOnEveryBackend<ClientStore & OrganizationStore & TokenStore>('OAuth2 client store', (t) => {
  it('creates, finds, lists, re-keys and deletes OAuth2 clients within their organisation only', async () => {
    const { store } = t;
    const a = await storedOrg(store);
    const b = await storedOrg(store);
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

  it('deleting a client revokes the tokens issued to it, its own, and everything exchanged from those', async () => {
    const { store } = t;
    const { id: orgId } = await storedOrg(store);
    const c = client(orgId);
    await store.createClient(c);
    const issuedTo = { ...token(orgId), clientId: c.id, subject: 'per_someone' };
    const own = { ...token(orgId), clientId: c.id, subject: c.id };
    const exchanged = { ...token(orgId, issuedTo.hash), clientId: 'cli_downstream', subject: 'per_someone' };
    const unrelated = { ...token(orgId), clientId: 'cli_downstream', subject: 'per_someone' };
    for (const x of [issuedTo, own, exchanged, unrelated]) await store.insertToken(x);

    assert.equal(await store.deleteClient(orgId, c.id, 60), true);
    assert.deepEqual(await revokedAt(store, issuedTo, own, exchanged, unrelated), [60, 60, 60, null]);
    assert.equal(await store.findClient(c.id), undefined);
  });

  it("keeps a keyed client's method and keys as registered", async () => {
    const { store } = t;
    const { id: orgId } = await storedOrg(store);
    const keyed = { ...client(orgId), authMethod: 'private_key_jwt' as const, jwks: { keys: [{ kty: 'OKP', crv: 'Ed25519', x: 'x-coordinate', kid: 'k1' }] } };
    await store.createClient(keyed);
    assert.deepEqual(await store.findClient(keyed.id), keyed);
    assert.deepEqual((await store.findClientWithConfig(keyed.id))?.client, keyed);
  });

  it("spends a client assertion's jti once until it expires, per client, and purges spent ones after", async () => {
    const { store } = t;
    const { id: orgId } = await storedOrg(store);
    const [a, b] = [client(orgId), client(orgId)];
    await store.createClient(a);
    await store.createClient(b);
    assert.equal(await store.spendClientAssertion(a.id, 'jti-1', 1_000, 100), true);
    assert.equal(await store.spendClientAssertion(a.id, 'jti-1', 1_000, 200), false, 'a replay before expiry');
    assert.equal(await store.spendClientAssertion(b.id, 'jti-1', 1_000, 200), true, 'another client may use the same jti');
    assert.deepEqual(
      await Promise.all(Array.from({ length: 5 }, () => store.spendClientAssertion(a.id, 'jti-2', 1_000, 300))).then((won) => won.filter(Boolean).length),
      1,
      'five at once: one wins',
    );
    assert.equal(await store.spendClientAssertion(a.id, 'jti-1', 2_000, 1_000), true, 'once the first use expired');
    assert.equal(await store.purgeClientAssertions(1_500, 100), 2, 'a/jti-2 and b/jti-1 expired at 1000');
    assert.equal(await store.spendClientAssertion(a.id, 'jti-1', 3_000, 1_600), false, 'the renewed use is kept');
    assert.equal(await store.deleteClient(orgId, a.id, 2), true);
    assert.equal(await store.spendClientAssertion(b.id, 'jti-3', 5_000, 1_700), true);
    assert.equal(await store.purgeClientAssertions(10_000, 100), 1, "a deleted client's jtis went with it");
  });

  it('deleting an unknown client revokes nothing', async () => {
    const { store } = t;
    const { id: orgId } = await storedOrg(store);
    const orphan = { ...token(orgId), clientId: 'cli_never_created' };
    await store.insertToken(orphan);
    assert.equal(await store.deleteClient(orgId, 'cli_never_created', 90), false);
    assert.deepEqual(await revokedAt(store, orphan), [null]);
  });
});
