/**
 * Reading rows as either driver returns them: PostgreSQL hands JSON columns back parsed
 * (jsonb) and BIGINT times as strings, SQLite hands JSON back as text and booleans as 0/1.
 * Each module store maps its own rows with these.
 */
export type Json = string | object;

export function json<T>(value: Json): T {
  return (typeof value === 'string' ? JSON.parse(value) : value) as T;
}

export function time(value: number | string): number {
  return Number(value);
}

export function optionalTime(value: number | string | null): number | null {
  return value === null ? null : Number(value);
}
