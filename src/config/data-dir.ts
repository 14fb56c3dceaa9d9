import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';

/**
 * Where Tessera keeps its files when no database is named: one place per user, whatever the
 * working directory, so `tessera admin create-org` run from another directory finds the same
 * database as the service. `TESSERA_DATA_DIR` wins; else the XDG Base Directory location.
 */
export function dataDirectory(env: Record<string, string | undefined>): string {
  if (env.TESSERA_DATA_DIR) return resolve(env.TESSERA_DATA_DIR);
  // The XDG specification says a relative XDG_DATA_HOME is invalid and must be ignored.
  const xdg = env.XDG_DATA_HOME;
  if (xdg && isAbsolute(xdg)) return join(xdg, 'tessera');
  return join(env.HOME || homedir(), '.local', 'share', 'tessera');
}

/** The database URL used when neither DATABASE_URL nor TESSERA_DATABASE is set. */
export function defaultDatabaseUrl(env: Record<string, string | undefined>): string {
  return `sqlite:${join(dataDirectory(env), 'tessera.db')}`;
}

/** The file of an `sqlite:PATH` URL, made absolute; undefined for memory and PostgreSQL. */
export function sqliteFile(databaseUrl: string): string | undefined {
  if (!databaseUrl.startsWith('sqlite:') || databaseUrl === 'sqlite::memory:') return undefined;
  return resolve(databaseUrl.slice('sqlite:'.length));
}
