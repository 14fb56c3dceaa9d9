import { StorageUnavailableError } from '../errors.ts';
import type { SqlParam } from '../sql-driver.ts';

/** PostgreSQL binds at most 65,535 parameters per statement; rows per batch stay well under. */
const MAX_PARAMS = 60_000;
const MAX_ROWS = 500;

/** `INSERT INTO t (a, b, c) VALUES ($1, $2, $3)` and nothing after: one row, its values in order. */
const SINGLE_ROW_INSERT = /^\s*INSERT\s+INTO\s+(\w+)\s*\(([^()]*)\)\s*VALUES\s*\(([^()]*)\)\s*$/i;

interface Shape {
  head: string;
  columns: number;
}

interface PendingInsert {
  params: readonly SqlParam[];
  resolve: (changes: number) => void;
  reject: (error: unknown) => void;
}

type Execute = (sql: string, params: readonly SqlParam[]) => Promise<number>;

/**
 * Group commit for PostgreSQL. Every request writes an audit event, most a token; sent one by
 * one, each is a round trip and a commit of its own. Single-row INSERTs of the same statement
 * issued in one turn of the event loop go instead as one multi-row INSERT: one round trip,
 * one commit, and no caller is answered before it. If that statement fails (a unique index
 * refused one of the rows), each row is sent again alone, so every caller gets its own
 * outcome and no row is lost or written twice (the failed statement wrote nothing).
 */
export class InsertCoalescer {
  readonly #execute: Execute;
  readonly #shapes = new Map<string, Shape | null>();
  #pending = new Map<string, PendingInsert[]>();
  #flushScheduled = false;

  constructor(execute: Execute) {
    this.#execute = execute;
  }

  /** The statement's outcome, or undefined when it is not a single-row INSERT (the caller sends it itself). */
  run(sql: string, params: readonly SqlParam[]): Promise<number> | undefined {
    const shape = this.#shape(sql);
    if (!shape || params.length !== shape.columns) return undefined;
    return new Promise((resolve, reject) => {
      const queue = this.#pending.get(sql);
      if (queue) queue.push({ params, resolve, reject });
      else this.#pending.set(sql, [{ params, resolve, reject }]);
      if (!this.#flushScheduled) {
        this.#flushScheduled = true;
        setImmediate(() => this.#flush());
      }
    });
  }

  #flush(): void {
    this.#flushScheduled = false;
    const groups = this.#pending;
    this.#pending = new Map();
    for (const [sql, inserts] of groups) {
      const shape = this.#shapes.get(sql)!;
      const perBatch = Math.min(MAX_ROWS, Math.floor(MAX_PARAMS / shape.columns));
      for (let start = 0; start < inserts.length; start += perBatch) {
        void this.#send(sql, shape, inserts.slice(start, start + perBatch));
      }
    }
  }

  async #send(sql: string, shape: Shape, batch: PendingInsert[]): Promise<void> {
    if (batch.length === 1) return settle(batch[0]!, this.#execute(sql, batch[0]!.params));
    try {
      await this.#execute(
        multiRow(shape, batch.length),
        batch.flatMap((insert) => insert.params),
      );
    } catch (error) {
      // An unreachable database fails every row alike; anything else is some row's own fault.
      if (error instanceof StorageUnavailableError) {
        for (const insert of batch) insert.reject(error);
        return;
      }
      await Promise.all(batch.map((insert) => settle(insert, this.#execute(sql, insert.params))));
      return;
    }
    for (const insert of batch) insert.resolve(1);
  }

  #shape(sql: string): Shape | null {
    let shape = this.#shapes.get(sql);
    if (shape === undefined) {
      shape = parseShape(sql);
      this.#shapes.set(sql, shape);
    }
    return shape;
  }
}

function parseShape(sql: string): Shape | null {
  const match = SINGLE_ROW_INSERT.exec(sql);
  if (!match) return null;
  const [, table, columnList, valueList] = match as unknown as [string, string, string, string];
  const columns = columnList.split(',').map((column) => column.trim());
  const values = valueList.split(',').map((value) => value.trim());
  // Only $1, $2, … in order: a literal or a reused parameter would not survive renumbering.
  if (columns.length !== values.length || values.some((value, i) => value !== `$${i + 1}`)) return null;
  return { head: `INSERT INTO ${table} (${columns.join(', ')}) VALUES `, columns: columns.length };
}

function multiRow(shape: Shape, rows: number): string {
  const tuples: string[] = [];
  for (let row = 0; row < rows; row++) {
    const base = row * shape.columns;
    tuples.push(`(${Array.from({ length: shape.columns }, (_, i) => `$${base + i + 1}`).join(', ')})`);
  }
  return shape.head + tuples.join(', ');
}

async function settle(insert: PendingInsert, outcome: Promise<number>): Promise<void> {
  try {
    insert.resolve(await outcome);
  } catch (error) {
    insert.reject(error);
  }
}
