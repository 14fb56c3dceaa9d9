import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { DatabaseSync, type SQLInputValue, type StatementSync } from 'node:sqlite';
import { StorageUnavailableError } from '../errors.ts';
import { type SqlDriver, type SqlExecutor, type SqlParam, UniqueViolation } from '../sql-driver.ts';

/**
 * node:sqlite is synchronous and has one connection, so a transaction that awaits between
 * statements must keep every other statement out until it ends: `#busy` is that gate.
 * Outside a transaction a statement runs at once, with no queueing cost.
 */
export class SqliteDriver implements SqlDriver {
  readonly dialect = 'sqlite' as const;
  readonly #db: DatabaseSync;
  readonly #statements = new Map<string, StatementSync>();
  #busy: Promise<void> | undefined;
  #pending: PendingWrite[] = [];
  #flushScheduled = false;
  readonly #direct: SqlExecutor;

  constructor(path: string) {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    this.#db = new DatabaseSync(path);
    // Waiting for another process's lock blocks the event loop, so the wait is kept short;
    // past it the write fails as unavailable (503, retry) rather than stalling every request.
    this.#db.exec('PRAGMA busy_timeout = 1000');
    if (path !== ':memory:') this.#db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL');
    this.#db.exec('PRAGMA foreign_keys = ON');
    this.#direct = {
      all: async <Row>(sql: string, params: readonly SqlParam[] = []) => this.#all<Row>(sql, params),
      run: async (sql: string, params: readonly SqlParam[] = []) => this.#run(sql, params),
    };
  }

  async all<Row>(sql: string, params: readonly SqlParam[] = []): Promise<Row[]> {
    while (this.#busy) await this.#busy;
    return this.#all<Row>(sql, params);
  }

  /**
   * Group commit: single writes issued in one turn of the event loop share one transaction,
   * because a commit costs far more than an insert. Each write runs in its own savepoint, so
   * a failing one rejects only its caller; every caller is answered after the commit.
   */
  run(sql: string, params: readonly SqlParam[] = []): Promise<number> {
    return new Promise((resolve, reject) => {
      this.#pending.push({ sql, params, resolve, reject });
      if (!this.#flushScheduled) {
        this.#flushScheduled = true;
        setImmediate(() => void this.#flush());
      }
    });
  }

  async #flush(): Promise<void> {
    while (this.#busy) await this.#busy;
    this.#flushScheduled = false;
    const batch = this.#pending;
    this.#pending = [];
    if (batch.length === 1) {
      const [write] = batch as [PendingWrite];
      try {
        write.resolve(this.#run(write.sql, write.params));
      } catch (error) {
        write.reject(error);
      }
      return;
    }
    const outcomes: (() => void)[] = [];
    try {
      try {
        this.#db.exec('BEGIN IMMEDIATE');
      } catch (error) {
        throw translate(error);
      }
      for (const write of batch) {
        this.#db.exec('SAVEPOINT grouped_write');
        try {
          const changes = this.#run(write.sql, write.params);
          this.#db.exec('RELEASE grouped_write');
          outcomes.push(() => write.resolve(changes));
        } catch (error) {
          this.#db.exec('ROLLBACK TO grouped_write; RELEASE grouped_write');
          outcomes.push(() => write.reject(error));
        }
      }
      this.#db.exec('COMMIT');
    } catch (error) {
      if (this.#db.isTransaction) this.#db.exec('ROLLBACK');
      for (const write of batch) write.reject(translate(error));
      return;
    }
    for (const outcome of outcomes) outcome();
  }

  /** `fn` must use `tx` only: calling this driver's own methods inside it would wait for itself. */
  async transaction<T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    while (this.#busy) await this.#busy;
    let release!: () => void;
    this.#busy = new Promise<void>((resolve) => (release = resolve));
    try {
      // IMMEDIATE takes the write lock up front, so another process on the same file
      // waits (busy_timeout) instead of failing half-way through.
      try {
        this.#db.exec('BEGIN IMMEDIATE');
      } catch (error) {
        throw translate(error);
      }
      try {
        const result = await fn(this.#direct);
        this.#db.exec('COMMIT');
        return result;
      } catch (error) {
        if (this.#db.isTransaction) this.#db.exec('ROLLBACK');
        throw error;
      }
    } finally {
      this.#busy = undefined;
      release();
    }
  }

  migrationTransaction<T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    return this.transaction(fn);
  }

  async close(): Promise<void> {
    while (this.#busy || this.#flushScheduled) await (this.#busy ?? new Promise((resolve) => setImmediate(resolve)));
    if (this.#db.isOpen) this.#db.close();
  }

  #statement(sql: string): StatementSync {
    let statement = this.#statements.get(sql);
    if (!statement) {
      // $1 → ?1: SQLite's numbered parameters bind positionally like PostgreSQL's.
      statement = this.#db.prepare(sql.replace(/\$(\d+)/g, '?$1'));
      this.#statements.set(sql, statement);
    }
    return statement;
  }

  #all<Row>(sql: string, params: readonly SqlParam[]): Row[] {
    try {
      return this.#statement(sql).all(...toSqlite(params)) as Row[];
    } catch (error) {
      throw translate(error);
    }
  }

  #run(sql: string, params: readonly SqlParam[]): number {
    try {
      return Number(this.#statement(sql).run(...toSqlite(params)).changes);
    } catch (error) {
      throw translate(error);
    }
  }
}

interface PendingWrite {
  sql: string;
  params: readonly SqlParam[];
  resolve: (changes: number) => void;
  reject: (error: unknown) => void;
}

function toSqlite(params: readonly SqlParam[]): SQLInputValue[] {
  return params.map((p) => (typeof p === 'boolean' ? (p ? 1 : 0) : p));
}

/** SQLITE_BUSY and SQLITE_LOCKED (primary result codes 5 and 6): another process holds the lock. */
const LOCKED = new Set([5, 6]);

function translate(error: unknown): unknown {
  const message = error instanceof Error ? error.message : '';
  const match = /^UNIQUE constraint failed: (\w+)\./.exec(message);
  if (match) return new UniqueViolation(match[1]!, error);
  const errcode = (error as { errcode?: number }).errcode;
  if (errcode !== undefined && LOCKED.has(errcode & 0xff)) return new StorageUnavailableError(error);
  return error;
}
