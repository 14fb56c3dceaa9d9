import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PostgresDriver } from '../../src/store/postgres/postgres-driver.ts';
import { UniqueViolation } from '../../src/store/sql-driver.ts';
import { backends } from '../helpers/backends.ts';

const postgres = backends().find((b) => b.name === 'postgres');
if (postgres) {
  describe('PostgreSQL group commit', () => {
    let driver: PostgresDriver;
    let drop: () => Promise<void>;
    before(async () => {
      const fresh = await postgres.fresh();
      drop = fresh.drop;
      driver = new PostgresDriver(fresh.url);
      await driver.run('CREATE TABLE events (id TEXT PRIMARY KEY, body TEXT NOT NULL)');
    });
    after(async () => {
      await driver.close();
      await drop();
    });

    const insert = (id: string, body = 'x') => driver.run('INSERT INTO events (id, body) VALUES ($1, $2)', [id, body]);
    const transactionsOf = async (...ids: string[]) =>
      (await driver.all<{ xmin: string }>('SELECT DISTINCT xmin::text AS xmin FROM events WHERE id = ANY($1::text[])', [`{${ids.join(',')}}`])).length;

    it('writes the single-row inserts of one turn in one transaction, each answered once committed (regression: one commit per request)', async () => {
      const ids = Array.from({ length: 20 }, (_, i) => `turn-${i}`);
      assert.deepEqual(
        await Promise.all(ids.map((id) => insert(id))),
        ids.map(() => 1),
      );
      assert.equal(await transactionsOf(...ids), 1);
      // Inserts of separate turns are separate transactions, as before.
      await insert('later-1');
      await insert('later-2');
      assert.equal(await transactionsOf('later-1', 'later-2'), 2);
    });

    it('refuses only the row a unique index refused; the others of its turn are written once', async () => {
      await insert('taken');
      const results = await Promise.allSettled([insert('mate-1'), insert('taken', 'again'), insert('mate-2')]);
      assert.deepEqual(
        results.map((r) => r.status),
        ['fulfilled', 'rejected', 'fulfilled'],
      );
      assert.ok(results[1].status === 'rejected' && results[1].reason instanceof UniqueViolation);
      const rows = await driver.all<{ id: string; body: string }>("SELECT id, body FROM events WHERE id IN ('taken', 'mate-1', 'mate-2') ORDER BY id");
      assert.deepEqual(
        rows.map((row) => [row.id, row.body]),
        [
          ['mate-1', 'x'],
          ['mate-2', 'x'],
          ['taken', 'x'],
        ],
      );
    });

    it('sends inserts it cannot merge (literals, ON CONFLICT, RETURNING) as they are', async () => {
      const [literal, upsert, returning] = await Promise.all([
        driver.run("INSERT INTO events (id, body) VALUES ($1, 'literal')", ['lit']),
        driver.run('INSERT INTO events (id, body) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING', ['taken', 'ignored']),
        driver.all<{ id: string }>('INSERT INTO events (id, body) VALUES ($1, $2) RETURNING id', ['ret', 'r']),
      ]);
      assert.deepEqual([literal, upsert, returning.map((row) => row.id)], [1, 0, ['ret']]);
    });
  });
}
