import pg from 'pg';
import { StorageUnavailableError } from '../errors.ts';
import { type SqlDriver, type SqlExecutor, type SqlParam, UniqueViolation } from '../sql-driver.ts';
import { InsertCoalescer } from './coalesced-inserts.ts';

/** Arbitrary constant shared by every replica: only one applies migrations at a time. */
const MIGRATION_LOCK_KEY = 7_358_112_401;
/** Runs of a transaction chosen as a deadlock's victim, the first included. */
const DEADLOCK_RETRIES = 3;

/** Timestamps are BIGINT milliseconds; they fit a double exactly, so read them as numbers. */
const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === pg.types.builtins.INT8) return (value: string) => Number(value);
    return pg.types.getTypeParser(oid, format);
  },
};

export interface PostgresOptions {
  poolSize?: number;
  connectTimeoutMs?: number;
}

export class PostgresDriver implements SqlDriver {
  readonly dialect = 'postgres' as const;
  readonly #pool: pg.Pool;
  readonly #inserts: InsertCoalescer;

  constructor(url: string, options: PostgresOptions = {}) {
    this.#pool = new pg.Pool({
      connectionString: url,
      max: options.poolSize ?? 10,
      connectionTimeoutMillis: options.connectTimeoutMs ?? 5_000,
      types,
    });
    // An idle connection dropped by a database restart must not crash the process;
    // the pool discards it and the next checkout opens a fresh one.
    this.#pool.on('error', () => {});
    this.#inserts = new InsertCoalescer((sql, params) => run(this.#pool, sql, params));
  }

  async all<Row>(sql: string, params: readonly SqlParam[] = []): Promise<Row[]> {
    return all<Row>(this.#pool, sql, params);
  }

  async run(sql: string, params: readonly SqlParam[] = []): Promise<number> {
    return this.#inserts.run(sql, params) ?? run(this.#pool, sql, params);
  }

  /**
   * A transaction PostgreSQL chose as a deadlock's victim (40P01) is run again, up to
   * DEADLOCK_RETRIES times: it was rolled back whole, so nothing of it happened. Two changes of one
   * person by different doors (a credential deleted as the person is) can take their row locks in
   * opposite orders however carefully each is written; the retry turns that into one waiting for
   * the other, never a 500. `fn` does database work only, so running it again is safe.
   */
  async transaction<T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.#transaction(undefined, fn);
      } catch (error) {
        if (attempt >= DEADLOCK_RETRIES || (error as { code?: unknown }).code !== '40P01') throw error;
      }
    }
  }

  migrationTransaction<T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    return this.#transaction(`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK_KEY})`, fn);
  }

  async close(): Promise<void> {
    await this.#pool.end();
  }

  async #transaction<T>(lock: string | undefined, fn: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    let client: pg.PoolClient;
    try {
      client = await this.#pool.connect();
    } catch (error) {
      throw translate(error);
    }
    const tx: SqlExecutor = {
      all: <Row>(sql: string, params: readonly SqlParam[] = []) => all<Row>(client, sql, params),
      run: (sql: string, params: readonly SqlParam[] = []) => run(client, sql, params),
    };
    let broken: Error | undefined;
    // Checked out, the connection is no longer the pool's to watch: one the server ends between
    // two statements (a restart, pg_terminate_backend) emits 'error', which with no listener
    // crashed the process. Its next statement fails the transaction; release then discards it.
    const onError = (error: Error) => (broken = error);
    client.on('error', onError);
    try {
      await tx.run('BEGIN');
      if (lock) await tx.run(lock);
      const result = await fn(tx);
      await tx.run('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch((rollbackError: Error) => (broken = rollbackError));
      throw error;
    } finally {
      client.off('error', onError);
      // A connection whose rollback failed, or that broke, is in an unknown state: destroy, don't reuse.
      client.release(broken);
    }
  }
}

type Queryable = Pick<pg.Pool, 'query'>;

/**
 * Each distinct statement gets a name, so each connection parses and plans it once and then
 * only binds and executes: without one, PostgreSQL parsed and planned every statement again.
 */
const statementNames = new Map<string, string>();

function prepared(sql: string, params: readonly SqlParam[]): pg.QueryConfig<SqlParam[]> {
  let name = statementNames.get(sql);
  if (name === undefined) statementNames.set(sql, (name = `tessera_${statementNames.size}`));
  return { name, text: sql, values: params as SqlParam[] };
}

async function all<Row>(db: Queryable, sql: string, params: readonly SqlParam[]): Promise<Row[]> {
  try {
    return (await db.query(prepared(sql, params))).rows as Row[];
  } catch (error) {
    throw translate(error);
  }
}

async function run(db: Queryable, sql: string, params: readonly SqlParam[]): Promise<number> {
  try {
    return (await db.query(prepared(sql, params))).rowCount ?? 0;
  } catch (error) {
    throw translate(error);
  }
}

/** SQLSTATE classes that mean "the database is not there right now", not "your query is wrong". */
const UNAVAILABLE_SQLSTATE = /^(08|53|57P)/;
const UNAVAILABLE_ERRNO = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH']);

function translate(error: unknown): unknown {
  if (!(error instanceof Error)) return error;
  const { code, table } = error as Error & { code?: string; table?: string };
  if (code === '23505') return new UniqueViolation(table ?? 'unknown', error);
  if (code && (UNAVAILABLE_SQLSTATE.test(code) || UNAVAILABLE_ERRNO.has(code))) return new StorageUnavailableError(error);
  if (/Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error/i.test(error.message)) {
    return new StorageUnavailableError(error);
  }
  return error;
}
