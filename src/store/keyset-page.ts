import type { Page, PageRequest } from './page.ts';
import type { SqlExecutor } from './sql-driver.ts';

/** Tables listed per organisation in id order (ids are time-ordered, so this is creation order). */
export type ListedTable = 'api_keys' | 'persons' | 'oauth_clients' | 'audit_events' | 'credentials' | 'identity_connections';

/** An optional equality filter on one trusted column name (a person's credentials: person_id). */
export interface PageFilter {
  column: 'type' | 'person_id';
  value: string;
}

/**
 * Keyset pagination over (org_id, id): each page is one index range scan, stable while rows
 * are added or removed, however deep the page. One extra row is read to learn whether the
 * page has a neighbour in the direction of travel; the other side costs one EXISTS probe.
 */
export async function keysetPage<Row extends { id: string }, T>(
  db: SqlExecutor,
  table: ListedTable,
  orgId: string,
  { position, limit }: PageRequest,
  decode: (row: Row) => T,
  filter?: PageFilter,
): Promise<Page<T>> {
  // The filter value is always the last parameter, so the positional ones keep their numbers.
  const scope = (next: number) => `org_id = $1${filter ? ` AND ${filter.column} = $${next}` : ''}`;
  const extra = filter ? [filter.value] : [];
  const select = (next: number) => `SELECT * FROM ${table} WHERE ${scope(next)}`;
  const exists = (op: string, id: string) =>
    db.all(`SELECT 1 AS found FROM ${table} WHERE ${scope(3)} AND id ${op} $2 LIMIT 1`, [orgId, id, ...extra]).then((r) => r.length > 0);

  switch (position.kind) {
    case 'first': {
      const rows = await db.all<Row>(`${select(3)} ORDER BY id ASC LIMIT $2`, [orgId, limit + 1, ...extra]);
      const [{ total }] = (await db.all<{ total: number }>(`SELECT COUNT(*) AS total FROM ${table} WHERE ${scope(2)}`, [orgId, ...extra])) as [
        { total: number },
      ];
      return { items: rows.slice(0, limit).map(decode), hasPrevious: false, hasNext: rows.length > limit, totalCount: Number(total) };
    }
    case 'after': {
      const rows = await db.all<Row>(`${select(4)} AND id > $2 ORDER BY id ASC LIMIT $3`, [orgId, position.id, limit + 1, ...extra]);
      return { items: rows.slice(0, limit).map(decode), hasPrevious: await exists('<=', position.id), hasNext: rows.length > limit };
    }
    case 'before': {
      const rows = await db.all<Row>(`${select(4)} AND id < $2 ORDER BY id DESC LIMIT $3`, [orgId, position.id, limit + 1, ...extra]);
      const items = rows.slice(0, limit).reverse().map(decode);
      return { items, hasPrevious: rows.length > limit, hasNext: await exists('>=', position.id) };
    }
    case 'last': {
      const rows = await db.all<Row>(`${select(3)} ORDER BY id DESC LIMIT $2`, [orgId, limit + 1, ...extra]);
      return { items: rows.slice(0, limit).reverse().map(decode), hasPrevious: rows.length > limit, hasNext: false };
    }
  }
}
