import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { after, before, describe, it } from 'node:test';
import { LATEST_SCHEMA_VERSION } from '../../src/store/migrations/index.ts';
import { errorCodes, startTestService, type TestService } from '../helpers/service.ts';

describe('/readyz and the schema version', () => {
  let directory: string;
  let file: string;
  let t: TestService;
  before(async () => {
    directory = mkdtempSync(join(tmpdir(), 'tessera-readyz-'));
    file = join(directory, 'db.sqlite');
    t = await startTestService({ name: 'sqlite', fresh: async () => ({ url: `sqlite:${file}`, drop: async () => {} }) });
  });
  after(async () => {
    await t.close();
    rmSync(directory, { recursive: true, force: true });
  });

  const onTheFile = (sql: string) => {
    const db = new DatabaseSync(file);
    db.exec('PRAGMA busy_timeout = 5000');
    db.exec(sql);
    db.close();
  };

  it('is not ready when the database is behind this release (say, restored from an older backup under it)', async () => {
    onTheFile(`DELETE FROM schema_migrations WHERE version = ${LATEST_SCHEMA_VERSION}`);
    try {
      const response = await t.call('GET', '/readyz');
      assert.equal(response.status, 503);
      assert.deepEqual(errorCodes(response.body), ['SERVICE_NOT_READY']);
      assert.match(response.body.errors[0].message, new RegExp(`version ${LATEST_SCHEMA_VERSION - 1}, behind the ${LATEST_SCHEMA_VERSION}`));
      assert.equal((await t.call('GET', '/healthz')).status, 200, 'alive all the same');
    } finally {
      onTheFile(`INSERT INTO schema_migrations (version, name, applied_at) VALUES (${LATEST_SCHEMA_VERSION}, 'restored', 0)`);
    }
    assert.equal((await t.call('GET', '/readyz')).status, 200);
  });

  it('stays ready when a newer release has migrated ahead of it (rolling upgrades: migrations only add)', async () => {
    onTheFile(`INSERT INTO schema_migrations (version, name, applied_at) VALUES (${LATEST_SCHEMA_VERSION + 1}, 'from a newer release', 0)`);
    const response = await t.call('GET', '/readyz');
    assert.equal(response.status, 200);
    assert.equal(response.body.result.schema_version, LATEST_SCHEMA_VERSION + 1);
  });
});
