import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { openStore } from '../../src/store/open-store.ts';
import type { StoreConnection } from '../../src/store/store.ts';
import { backends } from '../helpers/backends.ts';
import { contractOnEveryBackend, key, org } from './contract-harness.ts';

contractOnEveryBackend<StoreConnection>('Store connection', (t) => {
  it('reports its dialect and answers a ping', async () => {
    assert.equal(t.store.dialect, t.backend.name);
    await t.store.ping();
  });
});

for (const backend of backends()) {
  describe(`Migrations on ${backend.name}`, () => {
    it('apply once and are idempotent on every later start', async () => {
      const database = await backend.fresh();
      const directory = mkdtempSync(join(tmpdir(), 'tessera-migrate-'));
      const url = backend.name === 'sqlite' ? `sqlite:${join(directory, 'db.sqlite')}` : database.url;
      const first = await openStore(url);
      assert.deepEqual(first.migrated, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
      const o = org();
      await first.store.createOrganization(o, key(o.id));
      await first.store.close();
      const second = await openStore(url);
      assert.deepEqual(second.migrated, []);
      assert.deepEqual(await second.store.getOrganization(o.id), o, 'data survives a restart');
      await second.store.close();
      await database.drop();
      rmSync(directory, { recursive: true, force: true });
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
