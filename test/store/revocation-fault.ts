import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import pg from 'pg';
import type { Backend } from '../helpers/backends.ts';

/**
 * A database that a test can reach beside the store under test, to make revoking tokens fail
 * for real: a trigger refuses every change of tokens.revoked_at, so the store's own statement
 * fails inside its own transaction. SQLite needs a file for that (an in-memory database is
 * private to one connection); PostgreSQL uses the backend's per-test schema.
 */
export interface FaultableDatabase {
  url: string;
  /** Call after the store has migrated the schema (the trigger needs the tokens table). */
  breakRevocation(): Promise<void>;
  mendRevocation(): Promise<void>;
  /** The database as a backend for startTestService, which must not drop it itself. */
  asBackend(): Backend;
  drop(): Promise<void>;
}

export const INJECTED_FAULT = 'injected fault: revoking tokens refused';

export async function faultableDatabase(backend: Backend): Promise<FaultableDatabase> {
  const database = backend.name === 'sqlite' ? sqliteFile() : await postgresSchema(backend);
  return {
    ...database,
    asBackend: () => ({ name: backend.name, fresh: async () => ({ url: database.url, drop: async () => {} }) }),
  };
}

function sqliteFile(): Omit<FaultableDatabase, 'asBackend'> {
  const directory = mkdtempSync(join(tmpdir(), 'tessera-fault-'));
  const file = join(directory, 'db.sqlite');
  const exec = async (sql: string) => {
    const connection = new DatabaseSync(file);
    try {
      connection.exec('PRAGMA busy_timeout = 5000');
      connection.exec(sql);
    } finally {
      connection.close();
    }
  };
  return {
    url: `sqlite:${file}`,
    breakRevocation: () =>
      exec(`CREATE TRIGGER injected_revoke_fault BEFORE UPDATE OF revoked_at ON tokens
      BEGIN SELECT RAISE(ABORT, '${INJECTED_FAULT}'); END`),
    mendRevocation: () => exec('DROP TRIGGER injected_revoke_fault'),
    drop: async () => rmSync(directory, { recursive: true, force: true }),
  };
}

async function postgresSchema(backend: Backend): Promise<Omit<FaultableDatabase, 'asBackend'>> {
  const { url, drop } = await backend.fresh();
  // The URL selects the test's own schema through search_path, so the function and the
  // trigger land there and go with the schema when it is dropped.
  const exec = async (sql: string) => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  return {
    url,
    breakRevocation: () =>
      exec(`
      CREATE FUNCTION injected_revoke_fault() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN RAISE EXCEPTION '${INJECTED_FAULT}'; END $$;
      CREATE TRIGGER injected_revoke_fault BEFORE UPDATE OF revoked_at ON tokens
        FOR EACH ROW EXECUTE FUNCTION injected_revoke_fault()`),
    mendRevocation: () => exec('DROP TRIGGER injected_revoke_fault ON tokens; DROP FUNCTION injected_revoke_fault()'),
    drop,
  };
}
