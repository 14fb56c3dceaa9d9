import { StorageUnavailableError } from './errors.ts';
import type { SqlDriver, SqlExecutor, SqlParam } from './sql-driver.ts';

/** Quiet time that proves a request's next statement is not about to follow the last one. */
const QUIET_MS = 50;
const MAX_DRAIN_MS = 5_000;

/**
 * Lets shutdown finish the work already started. An HTTP server stops waiting for a request
 * whose client hung up, but its handler may still be between two statements; closing the
 * pool under it would turn a clean stop into errors. close() therefore waits until no
 * statement has run for QUIET_MS (at most MAX_DRAIN_MS), and anything later is refused as
 * StorageUnavailableError, which callers already treat as "retry elsewhere".
 */
export function drainingDriver(driver: SqlDriver): SqlDriver {
  let active = 0;
  let lastActivity = 0;
  let closed = false;

  async function track<T>(work: () => Promise<T>): Promise<T> {
    if (closed) throw new StorageUnavailableError(new Error('the store is shut down'));
    active++;
    try {
      return await work();
    } finally {
      active--;
      lastActivity = Date.now();
    }
  }

  return {
    dialect: driver.dialect,
    all: <Row>(sql: string, params?: readonly SqlParam[]) => track(() => driver.all<Row>(sql, params)),
    run: (sql: string, params?: readonly SqlParam[]) => track(() => driver.run(sql, params)),
    transaction: <T>(fn: (tx: SqlExecutor) => Promise<T>) => track(() => driver.transaction(fn)),
    migrationTransaction: <T>(fn: (tx: SqlExecutor) => Promise<T>) => track(() => driver.migrationTransaction(fn)),
    async close() {
      const deadline = Date.now() + MAX_DRAIN_MS;
      while (Date.now() < deadline && (active > 0 || Date.now() - lastActivity < QUIET_MS)) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      closed = true;
      await driver.close();
    },
  };
}
