import assert from 'node:assert/strict';
import { it } from 'node:test';
import { newId } from '../../src/crypto/ids.ts';
import type { AuditStore } from '../../src/store/audit/store.ts';
import type { OrganizationStore } from '../../src/store/organizations/store.ts';
import { contractOnEveryBackend, storedOrg } from './contract-harness.ts';

contractOnEveryBackend<AuditStore & OrganizationStore>('Audit store', (t) => {
  it('records audit events and lists them by type with cursors', async () => {
    const { store } = t;
    const { id: orgId } = await storedOrg(store);
    for (let i = 0; i < 5; i++) {
      await store.recordAuditEvent({
        id: newId('evt', 1_700_000_000_000 + i),
        orgId,
        type: i % 2 ? 'token.exchange' : 'token.client_credentials',
        occurredAt: i,
        data: { i },
      });
    }
    const all = await store.listAuditEvents(orgId, undefined, { position: { kind: 'first' }, limit: 10 });
    assert.equal(all.totalCount, 5);
    const first = await store.listAuditEvents(orgId, 'token.client_credentials', { position: { kind: 'first' }, limit: 2 });
    assert.deepEqual(
      first.items.map((e) => e.data.i),
      [0, 2],
    );
    assert.equal(first.totalCount, 3);
    assert.equal(first.hasNext, true);
    const next = await store.listAuditEvents(orgId, 'token.client_credentials', { position: { kind: 'after', id: first.items[1]!.id }, limit: 2 });
    assert.deepEqual(
      next.items.map((e) => e.data.i),
      [4],
    );
    assert.deepEqual([next.hasPrevious, next.hasNext], [true, false]);
    const last = await store.listAuditEvents(orgId, 'token.exchange', { position: { kind: 'last' }, limit: 1 });
    assert.deepEqual(
      last.items.map((e) => e.data.i),
      [3],
    );
  });

  it("keeps each organisation's events to itself", async () => {
    const { store } = t;
    const a = await storedOrg(store);
    const b = await storedOrg(store);
    await store.recordAuditEvent({ id: newId('evt'), orgId: a.id, type: 'person.token_minted', occurredAt: 1, data: {} });
    assert.equal((await store.listAuditEvents(b.id, undefined, { position: { kind: 'first' }, limit: 10 })).totalCount, 0);
    assert.equal((await store.listAuditEvents(a.id, 'person.token_minted', { position: { kind: 'first' }, limit: 10 })).totalCount, 1);
  });
});
