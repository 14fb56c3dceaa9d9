import { migrate } from '../../src/store/migrate.ts';
import { migrationsFor } from '../../src/store/migrations.ts';
import { PostgresDriver } from '../../src/store/postgres/postgres-driver.ts';
import type { SqlDriver, SqlParam } from '../../src/store/sql-driver.ts';
import { SqliteDriver } from '../../src/store/sqlite/sqlite-driver.ts';

/** Where release 10 listened when the fixture was made: its JWTs name this issuer. */
export const RELEASE_10_PORT = 18390;
/** The last schema version release 10 knew. */
export const RELEASE_10_SCHEMA = 10;

/** What make-release-10-fixture.ts recorded of a database release 10 made. */
export interface Release10Fixture {
  madeAt: number;
  issuer: string;
  orgId: string;
  apiKey: string;
  persons: { tia: string; kai: string; vic: string; pat: string };
  passwords: { tia: string; kai: string; vic: string; pat: string };
  /** tia's TOTP recovery codes not spent while the fixture was made. */
  tiaRecoveryCodes: string[];
  client: { id: string; secret: string };
  tokens: { tiaPassword: string; tiaMinted: string; tiaDelegatedOpaque: string; kaiPassword: string; vicPassword: string; patPassword: string };
  consoleCookies: { tia: string; kai: string; vic: string };
  rows: { table: string; rows: Record<string, unknown>[] }[];
}

/**
 * Fills the empty database at `url` as release 10 left it: its schema (migrations 1 to 10 as they
 * were released, which are never edited) and the fixture's rows, table by table in the order
 * release 10 created them. The service started over it then migrates it as an upgrade would.
 */
export async function restoreRelease10(url: string, fixture: Release10Fixture): Promise<void> {
  const driver: SqlDriver = url.startsWith('sqlite:') ? new SqliteDriver(url.slice('sqlite:'.length)) : new PostgresDriver(url, {});
  try {
    await migrate(
      driver,
      migrationsFor(driver.dialect).filter((m) => m.version <= RELEASE_10_SCHEMA),
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
