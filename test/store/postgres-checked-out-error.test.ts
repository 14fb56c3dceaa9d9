import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { PostgresDriver } from '../../src/store/postgres/postgres-driver.ts';
import { backends } from '../helpers/backends.ts';

const postgres = backends().find((backend) => backend.name === 'postgres');

/**
 * Regression (the soak test's replica that died during a PostgreSQL restart, issue 30's CI): a
 * connection checked out for a transaction that the server ends between two statements emitted
 * 'error' with no listener, and the process crashed. The transaction must fail, and the
 * process carry on with a fresh connection.
 */
if (postgres)
  describe('PostgreSQL: a transaction`s connection ended by the server between statements', () => {
    it('fails that transaction, crashes nothing, and the next one runs on a fresh connection', async () => {
      const database = await postgres.fresh();
      const driver = new PostgresDriver(database.url);
      const killer = new PostgresDriver(database.url);
      try {
        const failed = await driver
          .transaction(async (tx) => {
            const [backend] = await tx.all<{ pid: number }>('SELECT pg_backend_pid() AS pid');
            await killer.all('SELECT pg_terminate_backend($1)', [backend!.pid]);
            // The server's goodbye reaches the idle, checked-out connection while nothing is asked of it.
            await sleep(300);
            return tx.all('SELECT 1 AS one');
          })
          .then(
            () => undefined,
            (error: unknown) => error,
          );
        assert.ok(failed instanceof Error, 'the transaction whose connection was ended failed');
        assert.deepEqual(await driver.all('SELECT 1 AS one'), [{ one: 1 }]);
      } finally {
        await Promise.all([driver.close(), killer.close()]);
        await database.drop();
      }
    });
  });
