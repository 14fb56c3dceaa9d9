import { spawn } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { migrate } from '../../src/store/migrate.ts';
import { migrationsFor } from '../../src/store/migrations/index.ts';
import { PostgresDriver } from '../../src/store/postgres/postgres-driver.ts';
import type { SqlDriver, SqlParam } from '../../src/store/sql-driver.ts';
import { SqliteDriver } from '../../src/store/sqlite/sqlite-driver.ts';

/** A database's rows as a fixture keeps them: table by table, in the order the tables were created. */
export type FixtureRows = { table: string; rows: Record<string, unknown>[] }[];

/**
 * Fills the empty database at `url` as an earlier release left it: migrations 1 to `schema` as
 * they were released (never edited) and the fixture's rows, table by table in creation order (so
 * foreign keys are satisfied). The service started over it then migrates it as an upgrade would.
 */
export async function restoreRelease(url: string, schema: number, rows: FixtureRows): Promise<void> {
  const driver: SqlDriver = url.startsWith('sqlite:') ? new SqliteDriver(url.slice('sqlite:'.length)) : new PostgresDriver(url, {});
  try {
    await migrate(
      driver,
      migrationsFor(driver.dialect).filter((m) => m.version <= schema),
    );
    for (const { table, rows: ofTable } of rows) {
      for (const row of ofTable) {
        const columns = Object.keys(row);
        const placeholders = columns.map((_, i) => `$${i + 1}`).join(', ');
        await driver.run(`INSERT INTO ${table} (${columns.join(', ')}) VALUES (${placeholders})`, Object.values(row) as SqlParam[]);
      }
    }
  } finally {
    await driver.close();
  }
}

/** Every table's rows of the SQLite file, in the order the tables were created. */
export function dumpSqlite(file: string): FixtureRows {
  const db = new DatabaseSync(file);
  try {
    const tables = db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> 'schema_migrations' ORDER BY rowid")
      .all();
    return tables.map(({ name }) => ({ table: String(name), rows: db.prepare(`SELECT * FROM "${String(name)}"`).all() as Record<string, unknown>[] }));
  } finally {
    db.close();
  }
}

/**
 * For a fixture generator: starts the earlier release's `tessera service` with `env`, waits for
 * `base`/healthz, writes what `populate` returns to test/upgrade/fixtures/`name`, then stops it
 * and removes `dir` (its data directory).
 */
export async function makeFixture(options: {
  tessera: string;
  env: NodeJS.ProcessEnv;
  base: string;
  dir: string;
  name: string;
  populate: () => Promise<unknown>;
}): Promise<void> {
  const service = spawn(options.tessera, ['service'], { env: options.env, stdio: 'inherit' });
  try {
    for (let i = 0; ; i++) {
      if ((await fetch(`${options.base}/healthz`).catch(() => undefined))?.ok) break;
      if (i > 100) throw new Error(`the release at ${options.base} did not start`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    writeFileSync(join(process.cwd(), 'test/upgrade/fixtures', options.name), `${JSON.stringify(await options.populate(), null, 1)}\n`);
  } finally {
    service.kill('SIGTERM');
    await new Promise((resolve) => service.once('exit', resolve));
    rmSync(options.dir, { recursive: true, force: true });
  }
}
