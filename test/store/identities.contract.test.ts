import assert from 'node:assert/strict';
import { it } from 'node:test';
import { newId } from '../../src/crypto/ids.ts';
import type { ConnectionStore } from '../../src/store/connections/store.ts';
import type { Identity, IdentityStore } from '../../src/store/identities/store.ts';
import type { OrganizationStore } from '../../src/store/organizations/store.ts';
import { connection, contractOnEveryBackend, storedOrg } from './contract-harness.ts';

function identity(orgId: string, connectionId: string, userName: string, email: string | null = null): Identity {
  const at = Date.now();
  return {
    id: newId('idn', at),
    orgId,
    connectionId,
    userName,
    externalId: `ext-${userName}`,
    email,
    active: true,
    deactivatedAt: null,
    displayName: 'D',
    attributes: { userName, nested: { list: [1, 'two'] } },
    createdAt: at,
    updatedAt: at,
  };
}

contractOnEveryBackend<IdentityStore & ConnectionStore & OrganizationStore>('Identity store', (t) => {
  async function setUp() {
    const org = await storedOrg(t.store);
    const c = connection(org.id);
    await t.store.createConnection(c);
    return { org, c };
  }

  it('keeps an identity as written and reads it only through its connection', async () => {
    const { org, c } = await setUp();
    const a = identity(org.id, c.id, 'Ada', 'Ada@Example.com');
    await t.store.createIdentity(a);
    assert.deepEqual(await t.store.getIdentity(org.id, c.id, a.id), a);
    const other = connection(org.id);
    await t.store.createConnection(other);
    assert.equal(await t.store.getIdentity(org.id, other.id, a.id), undefined);
  });

  it('keeps userName unique per connection whatever its case', async () => {
    const { org, c } = await setUp();
    await t.store.createIdentity(identity(org.id, c.id, 'Ada'));
    await assert.rejects(t.store.createIdentity(identity(org.id, c.id, 'ADA')), (e: unknown) => (e as { subject?: string }).subject === 'identity_user_name');
    const other = connection(org.id);
    await t.store.createConnection(other);
    await t.store.createIdentity(identity(org.id, other.id, 'ada'));
  });

  it('finds by userName and email case-insensitively, externalId exactly, with counts and offsets', async () => {
    const { org, c } = await setUp();
    const made = [identity(org.id, c.id, 'a', 'A@x.example'), identity(org.id, c.id, 'b'), identity(org.id, c.id, 'c')];
    for (const i of made) await t.store.createIdentity(i);
    const find = (conditions: Parameters<IdentityStore['findIdentities']>[2]['conditions'], offset = 0, count = 10) =>
      t.store.findIdentities(org.id, c.id, { conditions, offset, count });
    assert.equal((await find([{ attribute: 'userName', value: 'A' }])).items[0]?.id, made[0]!.id);
    assert.equal((await find([{ attribute: 'email', value: 'a@X.EXAMPLE' }])).total, 1);
    assert.equal((await find([{ attribute: 'externalId', value: 'EXT-a' }])).total, 0);
    assert.equal(
      (
        await find([
          { attribute: 'externalId', value: 'ext-a' },
          { attribute: 'id', value: made[0]!.id },
        ])
      ).total,
      1,
    );
    const page = await find([], 1, 1);
    assert.deepEqual([page.total, page.items.map((i) => i.id)], [3, [made[1]!.id]]);
    assert.deepEqual((await find([], 0, 0)).items, []);
  });

  it('updates atomically, and not at all when the update throws', async () => {
    const { org, c } = await setUp();
    const a = identity(org.id, c.id, 'a');
    await t.store.createIdentity(a);
    const deactivatedAt = a.createdAt + 1000;
    const updated = await t.store.updateIdentity(org.id, c.id, a.id, (current) => ({ ...current, active: false, deactivatedAt, userName: 'A2' }));
    const read = await t.store.getIdentity(org.id, c.id, a.id);
    assert.deepEqual([updated?.active, read?.userName, read?.deactivatedAt], [false, 'A2', deactivatedAt]);
    await assert.rejects(
      t.store.updateIdentity(org.id, c.id, a.id, () => {
        throw new Error('refused');
      }),
    );
    assert.equal((await t.store.getIdentity(org.id, c.id, a.id))?.userName, 'A2');
    assert.equal(await t.store.updateIdentity(org.id, c.id, 'idn_none', (x) => x), undefined);
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, n) =>
        t.store.updateIdentity(org.id, c.id, a.id, (current) => ({ ...current, attributes: { ...current.attributes, [`k${n}`]: n } })),
      ),
    );
    assert.equal(results.length, 10);
    assert.equal(Object.keys((await t.store.getIdentity(org.id, c.id, a.id))!.attributes).filter((k) => k.startsWith('k')).length, 10, 'no update lost');
    assert.equal(await t.store.deleteIdentity(org.id, c.id, a.id), true);
    assert.equal(await t.store.deleteIdentity(org.id, c.id, a.id), false);
  });
});
