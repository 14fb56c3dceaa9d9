import { tracingOn } from '../telemetry/spans.ts';
import { drainingDriver } from './draining-driver.ts';
import { migrate } from './migrate.ts';
import { migrationsFor } from './migrations/index.ts';
import type { SqlDriver } from './sql-driver.ts';
import { sqlStore } from './sql-store.ts';
import type { Store } from './store.ts';
import { tracedDriver } from './traced-driver.ts';

export interface OpenedStore {
  store: Store;
  /** Versions applied by this opening (empty when the schema was already current). */
  migrated: number[];
  /** Where the data lives, with any password removed, for start-up messages. */
  description: string;
}

/**
 * Opens the database named by `url` and brings its schema up to date.
 * `sqlite:PATH` (relative to the working directory), `sqlite::memory:`, or `postgres://…`.
 */
export async function openStore(url: string, options: { poolSize?: number } = {}): Promise<OpenedStore> {
  const raw = await driverFor(url, options);
  const driver = drainingDriver(tracingOn() ? tracedDriver(raw) : raw);
  try {
    const migrated = await migrate(driver, migrationsFor(driver.dialect));
    return { store: sqlStore(driver), migrated, description: describe(url) };
  } catch (error) {
    await driver.close().catch(() => {});
    throw error;
  }
}

// Only the driver the URL names is imported: a SQLite deployment need not carry pg in memory.
async function driverFor(url: string, options: { poolSize?: number }): Promise<SqlDriver> {
  if (url.startsWith('sqlite:')) {
    const { SqliteDriver } = await import('./sqlite/sqlite-driver.ts');
    return new SqliteDriver(url.slice('sqlite:'.length));
  }
  if (/^postgres(ql)?:\/\//.test(url)) {
    const { PostgresDriver } = await import('./postgres/postgres-driver.ts');
    return new PostgresDriver(url, options);
  }
  throw new TypeError(`unsupported database URL "${describe(url)}": use sqlite:PATH, sqlite::memory: or postgres://…`);
}

export function describe(url: string): string {
  return url.replace(/\/\/([^:@/]+):[^@/]*@/, '//$1:***@');
}
