import type { SqlExecutor } from './sql-driver.ts';
import type { Page, PageRequest } from './types.ts';

/** Tables listed per organisation in id order (ids are time-ordered, so this is creation order). */
export type ListedTable = 'api_keys' | 'persons' | 'oauth_clients';

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
): Promise<Page<T>> {
  const select = `SELECT * FROM ${table} WHERE org_id = $1`;
  const exists = (op: string, id: string) =>
    db.all(`SELECT 1 AS found FROM ${table} WHERE org_id = $1 AND id ${op} $2 LIMIT 1`, [orgId, id]).then((r) => r.length > 0);

  switch (position.kind) {
    case 'first': {
      const rows = await db.all<Row>(`${select} ORDER BY id ASC LIMIT $2`, [orgId, limit + 1]);
      const [{ total }] = (await db.all<{ total: number }>(`SELECT COUNT(*) AS total FROM ${table} WHERE org_id = $1`, [orgId])) as [
        { total: number },
      ];
      return { items: rows.slice(0, limit).map(decode), hasPrevious: false, hasNext: rows.length > limit, totalCount: Number(total) };
    }
    case 'after': {
      const rows = await db.all<Row>(`${select} AND id > $2 ORDER BY id ASC LIMIT $3`, [orgId, position.id, limit + 1]);
      return { items: rows.slice(0, limit).map(decode), hasPrevious: await exists('<=', position.id), hasNext: rows.length > limit };
    }
    case 'before': {
      const rows = await db.all<Row>(`${select} AND id < $2 ORDER BY id DESC LIMIT $3`, [orgId, position.id, limit + 1]);
      const items = rows.slice(0, limit).reverse().map(decode);
      return { items, hasPrevious: rows.length > limit, hasNext: await exists('>=', position.id) };
    }
    case 'last': {
      const rows = await db.all<Row>(`${select} ORDER BY id DESC LIMIT $2`, [orgId, limit + 1]);
      return { items: rows.slice(0, limit).reverse().map(decode), hasPrevious: rows.length > limit, hasNext: false };
    }
  }
}
