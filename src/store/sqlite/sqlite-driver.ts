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
  #pending: PendingWrite<unknown>[] = [];
  #flushScheduled = false;
  readonly #direct: SqlExecutor;

  constructor(path: string) {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    this.#db = new DatabaseSync(path);
    // Another worker may be creating the same file: at start-up its lock is waited for.
    this.#db.exec(`PRAGMA busy_timeout = ${MIGRATION_LOCK_WAIT_MS}`);
    if (path !== ':memory:') {
      enableWal(this.#db);
      this.#db.exec('PRAGMA synchronous = NORMAL');
    }
    this.#db.exec('PRAGMA foreign_keys = ON');
    // Waiting for another process's lock blocks the event loop, so on requests the wait is kept
    // short; past it the write fails as unavailable (503, retry) rather than stalling every request.
    this.#db.exec(`PRAGMA busy_timeout = ${LOCK_WAIT_MS}`);
    this.#direct = {
      all: async <Row>(sql: string, params: readonly SqlParam[] = []) => this.#all<Row>(sql, params),
      run: async (sql: string, params: readonly SqlParam[] = []) => this.#run(sql, params),
    };
  }

  async all<Row>(sql: string, params: readonly SqlParam[] = []): Promise<Row[]> {
    // A write that returns rows (an upsert's RETURNING, a spend's DELETE … RETURNING) commits
    // with the other writes of its turn, like run().
    if (WRITE.test(sql)) return this.#enqueue(sql, params, (statement, values) => statement.all(...values) as Row[]);
    while (this.#busy) await this.#busy;
    return this.#all<Row>(sql, params);
  }

  /**
   * Group commit: single writes issued in one turn of the event loop share one transaction,
   * because a commit costs far more than an insert. Each write runs in its own savepoint, so
   * a failing one rejects only its caller; every caller is answered after the commit.
   */
  run(sql: string, params: readonly SqlParam[] = []): Promise<number> {
    return this.#enqueue(sql, params, (statement, values) => Number(statement.run(...values).changes));
  }

  #enqueue<T>(sql: string, params: readonly SqlParam[], execute: (statement: StatementSync, values: SQLInputValue[]) => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const write: PendingWrite<T> = { execute: () => this.#execute(sql, params, execute), resolve, reject };
      this.#pending.push(write as PendingWrite<unknown>);
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
      const [write] = batch as [PendingWrite<unknown>];
      try {
        write.resolve(write.execute());
      } catch (error) {
        write.reject(error);
      }
      return;
    }
    const outcomes: (() => void)[] = [];
    try {
      try {
        this.#control('BEGIN IMMEDIATE');
      } catch (error) {
        throw translate(error);
      }
      for (const write of batch) {
        this.#control('SAVEPOINT grouped_write');
        try {
          const result = write.execute();
          this.#control('RELEASE grouped_write');
          outcomes.push(() => write.resolve(result));
        } catch (error) {
          this.#control('ROLLBACK TO grouped_write');
          this.#control('RELEASE grouped_write');
          outcomes.push(() => write.reject(error));
        }
      }
      this.#control('COMMIT');
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
        this.#control('BEGIN IMMEDIATE');
      } catch (error) {
        throw translate(error);
      }
      try {
        const result = await fn(this.#direct);
        this.#control('COMMIT');
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

  /**
   * Workers starting together on a new file all migrate it; the one that takes the lock may
   * hold it for seconds on a busy machine. Nothing is served before migrating, so blocking
   * start-up is harmless here, unlike on a request's path.
   */
  async migrationTransaction<T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    this.#db.exec(`PRAGMA busy_timeout = ${MIGRATION_LOCK_WAIT_MS}`);
    try {
      return await this.transaction(fn);
    } finally {
      this.#db.exec(`PRAGMA busy_timeout = ${LOCK_WAIT_MS}`);
    }
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

  /** Transaction control runs once or twice per write in a group: prepared once, not parsed each time. */
  #control(sql: string): void {
    this.#statement(sql).run();
  }

  #all<Row>(sql: string, params: readonly SqlParam[]): Row[] {
    return this.#execute(sql, params, (statement, values) => statement.all(...values) as Row[]);
  }

  #run(sql: string, params: readonly SqlParam[]): number {
    return this.#execute(sql, params, (statement, values) => Number(statement.run(...values).changes));
  }

  #execute<T>(sql: string, params: readonly SqlParam[], execute: (statement: StatementSync, values: SQLInputValue[]) => T): T {
    try {
      return execute(this.#statement(sql), toSqlite(params));
    } catch (error) {
      throw translate(error);
    }
  }
}

const LOCK_WAIT_MS = 1_000;
const MIGRATION_LOCK_WAIT_MS = 30_000;

/** Statements that change rows: these commit in a group (see run()). */
const WRITE = /^\s*(INSERT|UPDATE|DELETE|REPLACE)\b/i;

interface PendingWrite<T> {
  execute: () => T;
  resolve: (result: T) => void;
  reject: (error: unknown) => void;
}

function toSqlite(params: readonly SqlParam[]): SQLInputValue[] {
  return params.map((p) => (typeof p === 'boolean' ? (p ? 1 : 0) : p));
}

/** SQLITE_BUSY and SQLITE_LOCKED (primary result codes 5 and 6): another process holds the lock. */
const LOCKED = new Set([5, 6]);

const isLocked = (error: unknown) => LOCKED.has(((error as { errcode?: number }).errcode ?? 0) & 0xff);

/**
 * Switching a new file to WAL needs an exclusive lock that SQLite does not wait for
 * (busy_timeout does not apply to it), so workers opening a new file together saw "database
 * is locked": the switch is retried until the start-up wait runs out. The constructor is
 * synchronous and nothing is served yet, so the retry sleeps the thread.
 */
function enableWal(db: DatabaseSync): void {
  const deadline = Date.now() + MIGRATION_LOCK_WAIT_MS;
  for (;;) {
    try {
      db.exec('PRAGMA journal_mode = WAL');
      return;
    } catch (error) {
      if (!isLocked(error) || Date.now() > deadline) throw translate(error);
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20);
    }
  }
}

function translate(error: unknown): unknown {
  const message = error instanceof Error ? error.message : '';
  const match = /^UNIQUE constraint failed: (\w+)\./.exec(message);
  if (match) return new UniqueViolation(match[1]!, error);
  if (isLocked(error)) return new StorageUnavailableError(error);
  return error;
}
