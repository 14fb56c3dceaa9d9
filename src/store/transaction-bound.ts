import type { SqlDriver, SqlExecutor } from './sql-driver.ts';

/**
 * A driver whose every statement runs in `tx`, an open transaction: a store built over it
 * writes only what that transaction commits. A module store's own transaction becomes a
 * savepoint inside it, so a module that catches a failure of its `db.transaction` and carries on
 * (or rolls its part back) behaves as it does alone, while nothing of it outlives the outer
 * rollback. A failed statement outside such a block aborts the whole transaction on
 * PostgreSQL: a module that means to carry on after one runs it in `db.transaction`. Statements
 * run one at a time: a callback must not run two `transaction` blocks at once (the savepoints
 * are named by depth).
 */
export function transactionBoundDriver(dialect: SqlDriver['dialect'], tx: SqlExecutor): SqlDriver {
  let depth = 0;
  return {
    dialect,
    all: (sql, params) => tx.all(sql, params),
    run: (sql, params) => tx.run(sql, params),
    async transaction(fn) {
      // Named by depth, not by a running count: PostgreSQL's driver prepares each distinct
      // statement once per connection, so the names must come from a small fixed set.
      const name = `nested_${++depth}`;
      try {
        await tx.run(`SAVEPOINT ${name}`);
        try {
          const result = await fn(tx);
          await tx.run(`RELEASE SAVEPOINT ${name}`);
          return result;
        } catch (error) {
          await tx.run(`ROLLBACK TO SAVEPOINT ${name}`);
          await tx.run(`RELEASE SAVEPOINT ${name}`);
          throw error;
        }
      } finally {
        depth--;
      }
    },
    migrationTransaction: () => Promise.reject(new TypeError('migrations run on the database, not inside a change')),
    // The outer transaction's driver owns the connection.
    close: () => Promise.reject(new TypeError('a transaction-bound store is closed with its database')),
  };
}
