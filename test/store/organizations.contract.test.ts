import assert from 'node:assert/strict';
import { it } from 'node:test';
import { newId } from '../../src/crypto/ids.ts';
import type { OrganizationStore } from '../../src/store/organizations/store.ts';
import { ConflictError } from '../../src/store/store.ts';
import { config, contractOnEveryBackend, key, org } from './contract-harness.ts';

contractOnEveryBackend<OrganizationStore>('Organisation store', (t) => {
  it('creates an organisation with its first key, finds it by id and name, updates its config', async () => {
    const { store } = t;
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
    await assert.rejects(
      store.updateOrganizationConfig(o.id, () => {
        throw new RangeError('refused');
      }),
      RangeError,
    );
    assert.deepEqual((await store.getOrganization(o.id))?.config, changed, 'a refused update changes nothing');
  });

  it('applies concurrent configuration updates one after the other, losing none', async () => {
    const { store } = t;
    const o = org();
    await store.createOrganization(o, key(o.id));
    const ids = Array.from({ length: 10 }, (_, i) => `spiffe://example.org/workload-${i}`);
    await Promise.all(
      ids.map((id) =>
        store.updateOrganizationConfig(o.id, (current) => ({
          ...current,
          allowed_spiffe_ids: [...current.allowed_spiffe_ids, id],
        })),
      ),
    );
    assert.deepEqual([...(await store.getOrganization(o.id))!.config.allowed_spiffe_ids].sort(), [...ids].sort());
    assert.equal(await store.getOrganization(newId('org')), undefined);
  });

  it('finds an organisation with its key in one look-up, and never with a foreign key', async () => {
    const { store } = t;
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
    const { store } = t;
    const first = org();
    await store.createOrganization(first, key(first.id));
    const second = { ...org(), name: first.name };
    const secondKey = key(second.id);
    await assert.rejects(store.createOrganization(second, secondKey), (e: unknown) => e instanceof ConflictError && e.subject === 'organization_name');
    assert.equal(await store.getOrganization(second.id), undefined);
    assert.equal(await store.findApiKeyBySecretHash(secondKey.secretHash), undefined);
  });

  it('keeps API key names unique per organisation only, deletes by id and by name', async () => {
    const { store } = t;
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

  it('revokes a key unless it is the last admin key, even when two are revoked at once', async () => {
    const { store } = t;
    const a = org();
    const first = key(a.id);
    await store.createOrganization(a, first);
    const integration = key(a.id, 'crm', 'integration');
    await store.createApiKey(integration);
    assert.deepEqual(await store.getApiKey(a.id, integration.id), integration);
    assert.equal(await store.getApiKey(newId('org'), integration.id), undefined);
    assert.equal(await store.deleteApiKeyKeepingAnAdmin(a.id, first.id), 'last_admin_key');
    assert.equal(await store.deleteApiKeyKeepingAnAdmin(a.id, integration.id), 'deleted');
    assert.equal(await store.deleteApiKeyKeepingAnAdmin(a.id, integration.id), 'not_found');
    const second = key(a.id, 'second');
    await store.createApiKey(second);
    const outcomes = await Promise.all([store.deleteApiKeyKeepingAnAdmin(a.id, first.id), store.deleteApiKeyKeepingAnAdmin(a.id, second.id)]);
    assert.deepEqual(outcomes.sort(), ['deleted', 'last_admin_key']);
    assert.equal((await store.listApiKeys(a.id, { position: { kind: 'first' }, limit: 10 })).totalCount, 1);
  });

  it('replaces a key by id in one step, keeping its name; nothing changes when the key is gone', async () => {
    const { store } = t;
    const a = org();
    const first = key(a.id);
    await store.createOrganization(a, first);
    const replacement = key(a.id);
    assert.equal(await store.replaceApiKeyById(a.id, first.id, replacement), true);
    assert.equal(await store.findApiKeyBySecretHash(first.secretHash), undefined);
    assert.deepEqual(await store.findApiKeyBySecretHash(replacement.secretHash), replacement);
    const late = key(a.id);
    assert.equal(await store.replaceApiKeyById(a.id, first.id, late), false);
    assert.equal(await store.findApiKeyBySecretHash(late.secretHash), undefined, 'the replacement of a key already gone is not stored');
  });

  it('commits concurrent single writes independently: a refused one takes no other with it', async () => {
    const { store } = t;
    const a = org();
    await store.createOrganization(a, key(a.id));
    const names = ['one', 'two', 'first', 'three', 'four'];
    const results = await Promise.allSettled(names.map((name) => store.createApiKey(key(a.id, name))));
    assert.deepEqual(
      results.map((r) => r.status),
      ['fulfilled', 'fulfilled', 'rejected', 'fulfilled', 'fulfilled'],
    );
    assert.ok((results[2] as PromiseRejectedResult).reason instanceof ConflictError);
    const listed = await store.listApiKeys(a.id, { position: { kind: 'first' }, limit: 10 });
    assert.deepEqual(listed.items.map((k) => k.name).sort(), ['first', 'four', 'one', 'three', 'two']);
  });
});
