import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { LATEST_SCHEMA_VERSION } from '../../src/store/migrations/index.ts';
import { openStore } from '../../src/store/open-store.ts';
import type { StoreConnection } from '../../src/store/store.ts';
import { backends } from '../helpers/backends.ts';
import { contractOnEveryBackend, key, org } from './contract-harness.ts';

contractOnEveryBackend<StoreConnection>('Store connection', (t) => {
  it('reports its dialect and answers a ping', async () => {
    assert.equal(t.store.dialect, t.backend.name);
    await t.store.ping();
  });

  it('reports the schema version its migrations brought it to', async () => {
    assert.equal(await t.store.schemaVersion(), LATEST_SCHEMA_VERSION);
  });
});

for (const backend of backends()) {
  describe(`Migrations on ${backend.name}`, () => {
    it('apply once and are idempotent on every later start', async () => {
      const database = await backend.fresh();
      const directory = mkdtempSync(join(tmpdir(), 'tessera-migrate-'));
      const url = backend.name === 'sqlite' ? `sqlite:${join(directory, 'db.sqlite')}` : database.url;
      const first = await openStore(url);
      assert.deepEqual(
        first.migrated,
        Array.from({ length: LATEST_SCHEMA_VERSION }, (_, i) => i + 1),
      );
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

// Replicas share PostgreSQL; several processes opening one SQLite file together are
// sqlite-open-together.test.ts's (two connections in one thread would block each other).
const postgres = backends().find((b) => b.name === 'postgres');
if (postgres) {
  describe('Migrations on postgres, two replicas at once', () => {
    it('are applied by one of two replicas starting at once; the other waits, then finds them done', async () => {
      const database = await postgres.fresh();
      const replicas = await Promise.all([openStore(database.url), openStore(database.url)]);
      try {
        assert.deepEqual(replicas.map((r) => r.migrated.length).sort(), [0, LATEST_SCHEMA_VERSION], 'one replica applied every migration, the other none');
        for (const { store } of replicas) assert.equal(await store.schemaVersion(), LATEST_SCHEMA_VERSION);
      } finally {
        for (const { store } of replicas) await store.close();
        await database.drop();
      }
    });
  });
}
