import type { Handle } from '../validation/handle.ts';
import { ConflictError, type ConflictSubject } from './errors.ts';

export type SqlParam = string | number | boolean | null;

/** Runs statements written with PostgreSQL-style placeholders ($1, $2, …) on either dialect. */
export interface SqlExecutor {
  all<Row>(sql: string, params?: readonly SqlParam[]): Promise<Row[]>;
  /** Returns the number of rows changed. */
  run(sql: string, params?: readonly SqlParam[]): Promise<number>;
}

export interface SqlDriver extends SqlExecutor {
  readonly dialect: 'sqlite' | 'postgres';
  /** Runs fn in one transaction: committed if it resolves, rolled back if it throws. */
  transaction<T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T>;
  /** Runs fn in a transaction that holds the database-wide migration lock. */
  migrationTransaction<T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** A unique index refused a row of `table`. Drivers translate their native error to this. */
export class UniqueViolation extends Error {
  readonly table: string;
  constructor(table: string, cause: unknown) {
    super(`unique violation on ${table}`, { cause });
    this.name = 'UniqueViolation';
    this.table = table;
  }
}

/**
 * Rethrows a unique-index refusal as the domain's ConflictError, naming what was taken by the
 * table that refused it (each module store knows its own tables); anything else unchanged.
 */
export function rethrowAsConflict(error: unknown, subjectByTable: Readonly<Record<string, ConflictSubject>>, handle?: Handle): never {
  if (error instanceof UniqueViolation) throw new ConflictError(subjectByTable[error.table] ?? 'secret', handle);
  throw error;
}
