import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { Worker } from 'node:worker_threads';
import { SqliteDriver } from '../../src/store/sqlite/sqlite-driver.ts';

/** Another connection, on a thread of its own, holds the new file's exclusive lock for `ms`. */
function holdExclusiveLock(file: string, ms: number): Promise<Worker> {
  const worker = new Worker(
    `const { DatabaseSync } = require('node:sqlite');
     const { parentPort, workerData } = require('node:worker_threads');
     const db = new DatabaseSync(workerData.file);
     db.exec('BEGIN EXCLUSIVE');
     parentPort.postMessage('locked');
     setTimeout(() => { db.exec('COMMIT'); db.close(); }, workerData.ms);`,
    { eval: true, workerData: { file, ms } },
  );
  return new Promise((resolve, reject) => {
    worker.once('message', () => resolve(worker));
    worker.once('error', reject);
  });
}

describe('SQLite: workers opening a new file together', () => {
  it("waits for another connection's exclusive lock while opening a new file, rather than failing", async () => {
    const directory = mkdtempSync(join(tmpdir(), 'tessera-sqlite-open-'));
    const file = join(directory, 'new.sqlite');
    try {
      const holder = await holdExclusiveLock(file, 300);
      const started = performance.now();
      const driver = new SqliteDriver(file);
      assert.ok(performance.now() - started >= 250, 'it waited for the lock instead of failing');
      assert.equal((await driver.all<{ journal_mode: string }>('PRAGMA journal_mode'))[0]?.journal_mode, 'wal');
      await driver.close();
      await holder.terminate();
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });
});
