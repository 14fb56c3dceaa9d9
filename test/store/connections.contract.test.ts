import assert from 'node:assert/strict';
import { it } from 'node:test';
import { newId } from '../../src/crypto/ids.ts';
import type { ConnectionStore } from '../../src/store/connections/store.ts';
import type { IdentityStore } from '../../src/store/identities/store.ts';
import type { OrganizationStore } from '../../src/store/organizations/store.ts';
import { connection, contractOnEveryBackend, storedOrg } from './contract-harness.ts';

contractOnEveryBackend<ConnectionStore & IdentityStore & OrganizationStore>('Connection store', (t) => {
  it('creates, reads, finds by token hash and lists connections of one organisation', async () => {
    const org = await storedOrg(t.store);
    const scim = connection(org.id);
    const pull = connection(org.id, 'pull', 'scim_pull');
    await t.store.createConnection(scim);
    await t.store.createConnection(pull);
    assert.deepEqual(await t.store.getConnection(org.id, pull.id), pull);
    assert.deepEqual(await t.store.findConnectionByTokenHash(scim.tokenHash!), scim);
    assert.equal(await t.store.getConnection((await storedOrg(t.store)).id, scim.id), undefined);
    const page = await t.store.listConnections(org.id, { position: { kind: 'first' }, limit: 10 });
    assert.deepEqual(
      page.items.map((c) => c.id),
      [scim.id, pull.id],
    );
  });

  it('refuses a second connection of the same name in one organisation', async () => {
    const org = await storedOrg(t.store);
    await t.store.createConnection(connection(org.id, 'same'));
    await assert.rejects(t.store.createConnection(connection(org.id, 'same')), (e: unknown) => (e as { subject?: string }).subject === 'connection_name');
    await t.store.createConnection(connection((await storedOrg(t.store)).id, 'same'));
  });

  it('replaces the token hash of a scim connection only', async () => {
    const org = await storedOrg(t.store);
    const scim = connection(org.id);
    const pull = connection(org.id, 'p', 'scim_pull');
    await t.store.createConnection(scim);
    await t.store.createConnection(pull);
    assert.equal(await t.store.replaceConnectionToken(org.id, scim.id, 'new-hash'), true);
    assert.equal(await t.store.findConnectionByTokenHash(scim.tokenHash!), undefined);
    assert.equal((await t.store.findConnectionByTokenHash('new-hash'))?.id, scim.id);
    assert.equal(await t.store.replaceConnectionToken(org.id, pull.id, 'other'), false);
  });

  it('deletes a connection with its identities', async () => {
    const org = await storedOrg(t.store);
    const scim = connection(org.id);
    await t.store.createConnection(scim);
    const at = Date.now();
    const identity = {
      id: newId('idn'),
      orgId: org.id,
      connectionId: scim.id,
      userName: 'u',
      externalId: null,
      email: null,
      active: true,
      deactivatedAt: null,
      displayName: null,
      attributes: { userName: 'u' },
      createdAt: at,
      updatedAt: at,
    };
    await t.store.createIdentity(identity);
    assert.equal(await t.store.deleteConnection(org.id, scim.id), true);
    assert.equal(await t.store.getIdentity(org.id, scim.id, identity.id), undefined);
    assert.equal(await t.store.deleteConnection(org.id, scim.id), false);
  });
});
