import type { SqlDriver, SqlExecutor } from './sql-driver.ts';

export interface Migration {
  version: number;
  name: string;
  statements: readonly string[];
  /** Data changes SQL alone cannot say, run after the statements in the same transaction. */
  data?: (tx: SqlExecutor) => Promise<void>;
}

/**
 * Applies the migrations the database has not seen, in order, in one transaction that holds
 * the migration lock: replicas starting together apply each migration exactly once, and a
 * restart applies nothing. A database migrated by a newer Tessera is refused, not guessed at.
 */
export async function migrate(driver: SqlDriver, migrations: readonly Migration[]): Promise<number[]> {
  return driver.migrationTransaction(async (tx) => {
    await tx.run('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)');
    const applied = new Set((await tx.all<{ version: number }>('SELECT version FROM schema_migrations')).map((row) => Number(row.version)));
    const known = new Set(migrations.map((m) => m.version));
    const newer = [...applied].filter((version) => !known.has(version));
    if (newer.length > 0) {
      throw new Error(`the database has schema version ${Math.max(...newer)}, newer than this Tessera knows (${Math.max(0, ...known)}); run a newer Tessera`);
    }
    const done: number[] = [];
    for (const migration of migrations) {
      if (applied.has(migration.version)) continue;
      for (const statement of migration.statements) await tx.run(statement);
      await migration.data?.(tx);
      await tx.run('INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)', [migration.version, migration.name, Date.now()]);
      done.push(migration.version);
    }
    return done;
  });
}
