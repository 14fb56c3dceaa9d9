import { migrate } from '../../src/store/migrate.ts';
import { migrationsFor } from '../../src/store/migrations.ts';
import { PostgresDriver } from '../../src/store/postgres/postgres-driver.ts';
import type { SqlDriver, SqlParam } from '../../src/store/sql-driver.ts';
import { SqliteDriver } from '../../src/store/sqlite/sqlite-driver.ts';

/** The last schema version release 11 knew. */
export const RELEASE_11_SCHEMA = 11;

/** What make-release-11-scim-fixture.ts recorded of the SCIM identities release 11 stored. */
export interface Release11ScimFixture {
  orgId: string;
  apiKey: string;
  connectionId: string;
  scimToken: string;
  users: { ada: string; bob: string; cat: string; dan: string; eve: string; gil: string; hal: string };
  rows: { table: string; rows: Record<string, unknown>[] }[];
}

/**
 * Fills the empty database at `url` as release 11 left it: migrations 1 to 11 as they were
 * released (never edited) and the fixture's rows, table by table in creation order.
 */
export async function restoreRelease11(url: string, fixture: Release11ScimFixture): Promise<void> {
  const driver: SqlDriver = url.startsWith('sqlite:') ? new SqliteDriver(url.slice('sqlite:'.length)) : new PostgresDriver(url, {});
  try {
    await migrate(
      driver,
      migrationsFor(driver.dialect).filter((m) => m.version <= RELEASE_11_SCHEMA),
    );
    for (const { table, rows } of fixture.rows) {
      for (const row of rows) {
        const columns = Object.keys(row);
        const placeholders = columns.map((_, i) => `$${i + 1}`).join(', ');
        await driver.run(`INSERT INTO ${table} (${columns.join(', ')}) VALUES (${placeholders})`, Object.values(row) as SqlParam[]);
      }
    }
  } finally {
    await driver.close();
  }
}
