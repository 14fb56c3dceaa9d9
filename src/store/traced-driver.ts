import { inSpan, SpanKind } from '../telemetry/spans.ts';
import type { SqlDriver, SqlExecutor, SqlParam } from './sql-driver.ts';

/** The statement's operation and the table it names first: a span name that groups alike (`SELECT tokens`). */
function summary(sql: string): { operation: string; name: string } {
  const operation = /^\s*(\w+)/.exec(sql)?.[1]?.toUpperCase() ?? 'SQL';
  const table = /\b(?:from|into|update|table)\s+"?(\w+)/i.exec(sql)?.[1];
  return { operation, name: table ? `${operation} ${table}` : operation };
}

/**
 * A client span per statement and per transaction, under whatever request runs them. The
 * statement is our own text with $n placeholders; the values (tokens' hashes, emails) are never
 * recorded. Wrapped only when tracing runs: otherwise the store gets its driver itself.
 */
export function tracedDriver(driver: SqlDriver): SqlDriver {
  const system = driver.dialect === 'postgres' ? 'postgresql' : 'sqlite';
  const statement = <T>(sql: string, run: () => Promise<T>): Promise<T> => {
    const { operation, name } = summary(sql);
    return inSpan(name, { 'db.system.name': system, 'db.operation.name': operation, 'db.query.text': sql }, run, SpanKind.CLIENT);
  };
  const traced = (executor: SqlExecutor): SqlExecutor => ({
    all: <Row>(sql: string, params?: readonly SqlParam[]) => statement(sql, () => executor.all<Row>(sql, params)),
    run: (sql: string, params?: readonly SqlParam[]) => statement(sql, () => executor.run(sql, params)),
  });
  const transaction =
    (kind: 'transaction' | 'migrationTransaction') =>
    <T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T> =>
      inSpan(
        kind === 'transaction' ? 'transaction' : 'migration transaction',
        { 'db.system.name': system },
        () => driver[kind]((tx) => fn(traced(tx))),
        SpanKind.CLIENT,
      );
  return {
    dialect: driver.dialect,
    ...traced(driver),
    transaction: transaction('transaction'),
    migrationTransaction: transaction('migrationTransaction'),
    close: () => driver.close(),
  };
}
