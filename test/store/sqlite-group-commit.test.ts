import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { after, before, describe, it } from 'node:test';
import { UniqueViolation } from '../../src/store/sql-driver.ts';
import { SqliteDriver } from '../../src/store/sqlite/sqlite-driver.ts';

describe('SQLite group commit', () => {
  let directory: string;
  let file: string;
  let driver: SqliteDriver;
  before(async () => {
    directory = mkdtempSync(join(tmpdir(), 'tessera-group-commit-'));
    file = join(directory, 'db.sqlite');
    driver = new SqliteDriver(file);
    await driver.run('CREATE TABLE counters (name TEXT PRIMARY KEY, hits INTEGER NOT NULL)');
  });
  after(async () => {
    await driver.close();
    rmSync(directory, { recursive: true, force: true });
  });

  const bump = (name: string) =>
    driver.all<{ hits: number }>('INSERT INTO counters (name, hits) VALUES ($1, 1) ON CONFLICT (name) DO UPDATE SET hits = counters.hits + 1 RETURNING hits', [
      name,
    ]);

  it('commits the RETURNING writes of one turn together (regression: each upsert was a commit of its own)', async () => {
    const walBytes = () => statSync(`${file}-wal`).size;
    await bump('warm');
    const beforeOne = walBytes();
    await bump('one');
    const oneCommit = walBytes() - beforeOne;
    const beforeFour = walBytes();
    await Promise.all([bump('four'), bump('four'), bump('four'), bump('four')]);
    // A commit appends each page it changed once: four commits would append four times as much.
    assert.equal(walBytes() - beforeFour, oneCommit);
  });

  it('answers each RETURNING write of one turn with its own rows, committed before the answer', async () => {
    const answers = await Promise.all([bump('a'), bump('a'), bump('b'), bump('a')]);
    assert.deepEqual(
      answers.map((rows) => rows.map((row) => row.hits)),
      [[1], [2], [1], [3]],
    );
    // Another connection, as another process would: what was answered is in the file.
    const other = new DatabaseSync(file, { readOnly: true });
    try {
      assert.deepEqual(
        other
          .prepare('SELECT name, hits FROM counters ORDER BY name')
          .all()
          .map((row) => ({ ...row })),
        [
          { name: 'a', hits: 3 },
          { name: 'b', hits: 1 },
          { name: 'four', hits: 4 },
          { name: 'one', hits: 1 },
          { name: 'warm', hits: 1 },
        ],
      );
    } finally {
      other.close();
    }
  });

  it('rejects only the failing write of a group; the others commit', async () => {
    const results = await Promise.allSettled([
      bump('c'),
      driver.all('INSERT INTO counters (name, hits) VALUES ($1, 1) RETURNING hits', ['c']),
      driver.run('INSERT INTO counters (name, hits) VALUES ($1, 5)', ['d']),
    ]);
    assert.equal(results[0].status, 'fulfilled');
    assert.equal(results[1].status, 'rejected');
    assert.ok(results[1].status === 'rejected' && results[1].reason instanceof UniqueViolation);
    assert.deepEqual(results[2], { status: 'fulfilled', value: 1 });
    const rows = await driver.all<{ name: string; hits: number }>("SELECT name, hits FROM counters WHERE name IN ('c', 'd') ORDER BY name");
    assert.deepEqual(
      rows.map((row) => [row.name, row.hits]),
      [
        ['c', 1],
        ['d', 5],
      ],
    );
  });
});
