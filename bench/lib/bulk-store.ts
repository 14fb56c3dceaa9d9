import { DatabaseSync } from 'node:sqlite';
import pg from 'pg';
import { encodeTime } from '../../src/crypto/ids.ts';

export type Dialect = 'sqlite' | 'postgres';

/** How many rows of each kind a big store holds (issue 13, goal 5). */
export const BIG_STORE = { persons: 100_000, clients: 10_000, liveTokens: 1_000_000 } as const;

/**
 * Rows written straight into the database by SQL that makes them on the server (a recursive
 * series in SQLite, generate_series in PostgreSQL): a million tokens through the API would take
 * longer than the benchmark. The service must not be running. The rows have the shapes the
 * service writes; token hashes are random, so their index is as scattered as real ones.
 */
export async function bulkLoad(dialect: Dialect, url: string, orgId: string, expiredTokens = 0): Promise<void> {
  const now = Date.now();
  const j = (literal: string) => (dialect === 'postgres' ? `'${literal}'::jsonb` : `'${literal}'`);
  const random = dialect === 'postgres' ? 'md5(random()::text) || md5(random()::text)' : 'lower(hex(randomblob(32)))';
  const pad = (expr: string) => (dialect === 'postgres' ? `lpad((${expr})::text, 8, '0')` : `printf('%08d', ${expr})`);
  // Keys as the service makes them (opaque-token.ts): the issue time first, so the rows sort by age.
  const tokens = (count: number, issuedFrom: number) => {
    const issuedAt = `${issuedFrom} + ${dialect === 'postgres' ? 'i::bigint' : 'i'} * 600000 / ${count}`; // ten minutes of issuing
    return insert(
      dialect,
      'tokens (hash, org_id, client_id, subject, scope, audience, resource, issued_at, expires_at)',
      count,
      `'${encodeTime(issuedFrom)}' || ${pad('i')} || '.' || ${random}, '${orgId}', 'cli_bulk' || ${pad(`1 + i % ${BIG_STORE.clients}`)}, 'per_bulk' || ${pad(`1 + i % ${BIG_STORE.persons}`)}, 'orders:read', ${j('[]')}, ${j('[]')}, ${issuedAt}, ${issuedAt} + 3600000`,
    );
  };
  const statements =
    expiredTokens > 0
      ? [tokens(expiredTokens, now - 2 * 3_600_000)]
      : [
          insert(
            dialect,
            'persons (id, org_id, handles, roles, console, created_at)',
            BIG_STORE.persons,
            `'per_bulk' || ${pad('i')}, '${orgId}', ${dialect === 'postgres' ? `jsonb_build_array(jsonb_build_object('type', 'email_address', 'value', 'bulk' || i || '@bench.example'))` : `json_array(json_object('type', 'email_address', 'value', 'bulk' || i || '@bench.example'))`}, ${j('[]')}, ${dialect === 'postgres' ? 'false' : '0'}, ${now}`,
          ),
          insert(
            dialect,
            'person_handles (org_id, type, value, person_id)',
            BIG_STORE.persons,
            `'${orgId}', 'email_address', 'bulk' || i || '@bench.example', 'per_bulk' || ${pad('i')}`,
          ),
          insert(
            dialect,
            'oauth_clients (id, org_id, name, scopes, grant_types, access_token_duration, access_token_format, secret_hash, created_at)',
            BIG_STORE.clients,
            `'cli_bulk' || ${pad('i')}, '${orgId}', 'bulk ' || i, ${j('["orders:read"]')}, ${j('["client_credentials"]')}, 3600, 'opaque', ${random}, ${now}`,
          ),
          tokens(BIG_STORE.liveTokens, now - 600_000),
        ];
  if (dialect === 'sqlite') {
    const db = new DatabaseSync(url.slice('sqlite:'.length));
    try {
      db.exec('BEGIN');
      for (const sql of statements) db.exec(sql);
      db.exec('COMMIT');
      db.exec('ANALYZE');
      db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
    } finally {
      db.close();
    }
    return;
  }
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (const sql of statements) await client.query(sql);
    await client.query('ANALYZE');
    await client.query('CHECKPOINT');
  } finally {
    await client.end();
  }
}

/** `count` rows of `select` (which may use the row number i, from 1) into `table (columns)`. */
function insert(dialect: Dialect, table: string, count: number, select: string): string {
  return dialect === 'postgres'
    ? `INSERT INTO ${table} SELECT ${select} FROM generate_series(1, ${count}) AS n(i)`
    : `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${count}) INSERT INTO ${table} SELECT ${select} FROM n`;
}

/** Expired tokens still in the database. */
export async function expiredTokenCount(dialect: Dialect, url: string): Promise<number> {
  const sql = 'SELECT count(*) AS n FROM tokens WHERE expires_at < ';
  if (dialect === 'sqlite') {
    const db = new DatabaseSync(url.slice('sqlite:'.length), { readOnly: true });
    try {
      return Number((db.prepare(`${sql}?`).get(Date.now()) as { n: number }).n);
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return Number((await client.query(`${sql}$1`, [Date.now()])).rows[0].n);
  } finally {
    await client.end();
  }
}
