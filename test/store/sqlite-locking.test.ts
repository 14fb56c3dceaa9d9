import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { describe, it } from 'node:test';
import { organizationConfigDefaults } from '../../src/config/defaults.ts';
import { openStore } from '../../src/store/open-store.ts';
import { StorageUnavailableError } from '../../src/store/store.ts';

describe('SQLite locked by another process', () => {
  it('answers writes as unavailable after a bounded wait, then recovers (regression: was a 500 after 5 s)', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'tessera-lock-'));
    const file = join(directory, 'db.sqlite');
    const { store } = await openStore(`sqlite:${file}`);
    const other = new DatabaseSync(file);
    try {
      const org = { id: 'org_locked', name: 'locked', config: { ...organizationConfigDefaults }, createdAt: 1 };
      const key = { id: 'key_1', orgId: org.id, name: 'k', kind: 'admin' as const, secretHash: 'h1', createdAt: 1 };
      other.exec('BEGIN IMMEDIATE'); // what `tessera admin …` holds while it writes
      const started = Date.now();
      await assert.rejects(store.createOrganization(org, key), StorageUnavailableError);
      await assert.rejects(store.createApiKey({ ...key, id: 'key_2', secretHash: 'h2' }), StorageUnavailableError);
      assert.ok(Date.now() - started < 4_000, `waited ${Date.now() - started} ms`);
      other.exec('ROLLBACK');
      await store.createOrganization(org, key);
      assert.equal((await store.getOrganization(org.id))?.name, 'locked');
    } finally {
      other.close();
      await store.close();
      rmSync(directory, { recursive: true, force: true });
    }
  });
});
