import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import pg from 'pg';
import { apiErrorStatus, oauthErrorStatus, scimErrorStatus } from '../../../src/errors/catalogue.ts';
import type { Backend } from '../../helpers/backends.ts';
import { type Response, startTestService, type TestService } from '../../helpers/service.ts';

/** Every row of every table, by table, each row as text: what "nothing was written" compares. */
export type Snapshot = Map<string, Set<string>>;

export interface FuzzService extends TestService {
  /** Reads the whole database through a second connection, as another replica would. */
  snapshot(): Promise<Snapshot>;
}

/**
 * The real service on port 0, over a database this file can also read directly: SQLite in a
 * file of its own (the in-memory one cannot be opened twice), PostgreSQL in a private schema.
 */
export async function startFuzzService(backend: Backend, env: Record<string, string> = {}): Promise<FuzzService> {
  let url = '';
  let dir: string | undefined;
  const readable: Backend = {
    name: backend.name,
    async fresh() {
      if (backend.name === 'postgres') {
        const database = await backend.fresh();
        url = database.url;
        return database;
      }
      dir = mkdtempSync(join(tmpdir(), 'tessera-fuzz-'));
      url = `sqlite:${join(dir, 'fuzz.db')}`;
      return { url, drop: async () => rmSync(dir!, { recursive: true, force: true }) };
    },
  };
  const t = await startTestService(readable, env);
  const reader = backend.name === 'postgres' ? await postgresReader(url) : sqliteReader(url.slice('sqlite:'.length));
  return {
    ...t,
    snapshot: reader.snapshot,
    async close() {
      await reader.close();
      await t.close();
    },
  };
}

interface Reader {
  snapshot(): Promise<Snapshot>;
  close(): Promise<void>;
}

function sqliteReader(path: string): Reader {
  const db = new DatabaseSync(path, { readOnly: true });
  const tables = () =>
    (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").all() as { name: string }[]).map((r) => r.name);
  return {
    async snapshot() {
      const snapshot: Snapshot = new Map();
      for (const table of tables())
        snapshot.set(
          table,
          new Set(
            db
              .prepare(`SELECT * FROM "${table}"`)
              .all()
              .map((row) => JSON.stringify(row)),
          ),
        );
      return snapshot;
    },
    async close() {
      db.close();
    },
  };
}

async function postgresReader(url: string): Promise<Reader> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const { rows } = await client.query<{ table_name: string }>(
    "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'",
  );
  // One round trip for the whole database: each row as its text form, tagged with its table.
  const sql = rows.map(({ table_name: name }) => `SELECT '${name}' AS tbl, t::text AS row FROM "${name}" t`).join(' UNION ALL ');
  return {
    async snapshot() {
      const snapshot: Snapshot = new Map(rows.map(({ table_name: name }) => [name, new Set<string>()]));
      for (const { tbl, row } of (await client.query<{ tbl: string; row: string }>(sql)).rows) snapshot.get(tbl)!.add(row);
      return snapshot;
    },
    close: () => client.end(),
  };
}

/** The rows each table gained and lost between two snapshots; tables without change are absent. */
export function changes(before: Snapshot, after: Snapshot): Record<string, { added: string[]; removed: string[] }> {
  const out: Record<string, { added: string[]; removed: string[] }> = {};
  for (const table of new Set([...before.keys(), ...after.keys()])) {
    const was = before.get(table) ?? new Set();
    const is = after.get(table) ?? new Set();
    const added = [...is].filter((row) => !was.has(row));
    const removed = [...was].filter((row) => !is.has(row));
    if (added.length > 0 || removed.length > 0) out[table] = { added, removed };
  }
  return out;
}

/** Asserts that between the snapshots nothing changed but the tables `allowed` names. */
export function assertNothingWritten(before: Snapshot, after: Snapshot, context: string, allowed: readonly string[] = []): void {
  const changed = Object.entries(changes(before, after)).filter(([table]) => !allowed.includes(table));
  assert.deepEqual(Object.fromEntries(changed), {}, `a refusal wrote to the database (${context})`);
}

/** The documented prefixes of an API message that names the field at fault (docs/errors.md). */
export const FIELD_PREFIX = /^(body|query|path|header )/;

/**
 * A refusal in the API envelope: a 4xx, every entry a catalogued code answered with that code's
 * status, a message for people; a message of a validation code names where the fault is.
 */
export function assertApiRefusal(response: Response, context: string): { code: string; message: string }[] {
  const where = `${context} → ${response.status} ${JSON.stringify(response.body).slice(0, 600)}`;
  assert.ok(response.status >= 400 && response.status < 500, `expected a 4xx refusal: ${where}`);
  assert.match(response.headers.get('content-type') ?? '', /^application\/json/, where);
  const errors = response.body?.errors;
  assert.ok(Array.isArray(errors) && errors.length > 0 && errors.length <= 10, `not an error envelope: ${where}`);
  for (const error of errors) {
    assert.ok(Object.hasOwn(apiErrorStatus, error.code), `uncatalogued code ${error.code}: ${where}`);
    assert.equal(apiErrorStatus[error.code as keyof typeof apiErrorStatus], response.status, `status is not the code's: ${where}`);
    assert.equal(error.httpcode, response.status, where);
    assert.equal(typeof error.message, 'string', where);
    if (['INVALID_FIELD', 'MALFORMED_JSON', 'UNSUPPORTED_MEDIA_TYPE', 'INVALID_HEADER', 'INVALID_CURSOR'].includes(error.code)) {
      assert.match(error.message, FIELD_PREFIX, `the message does not name the field: ${where}`);
    }
  }
  return errors;
}

/** An RFC 6749 §5.2 error of the catalogue, with its status, no-store, and no token. */
export function assertOAuthRefusal(response: { status: number; headers: Headers; body: any }, context: string): string {
  const where = `${context} → ${response.status} ${JSON.stringify(response.body)?.slice(0, 400)}`;
  const error = response.body?.error;
  assert.ok(Object.hasOwn(oauthErrorStatus, error), `not a catalogued OAuth error: ${where}`);
  assert.equal(response.status, oauthErrorStatus[error as keyof typeof oauthErrorStatus], `status is not the error's: ${where}`);
  assert.notEqual(error, 'server_error', where);
  assert.equal(typeof response.body.error_description, 'string', where);
  assert.equal(response.body.access_token, undefined, where);
  assert.equal(response.headers.get('cache-control'), 'no-store', where);
  if (response.status === 401) assert.match(response.headers.get('www-authenticate') ?? '', /^Basic realm="tessera"/, where);
  if (response.status === 503) assert.match(response.headers.get('retry-after') ?? '', /^\d+$/, where);
  return error;
}

/** An RFC 7644 §3.12 Error of the catalogue: SCIM media type, status as a string, its scimType. */
export function assertScimRefusal(response: { status: number; headers: Headers; body: any }, context: string): string | undefined {
  const where = `${context} → ${response.status} ${JSON.stringify(response.body)?.slice(0, 400)}`;
  assert.ok(response.status >= 400 && response.status < 500, `expected a 4xx refusal: ${where}`);
  assert.match(response.headers.get('content-type') ?? '', /^application\/scim\+json/, where);
  assert.deepEqual(response.body?.schemas, ['urn:ietf:params:scim:api:messages:2.0:Error'], where);
  assert.equal(response.body.status, String(response.status), where);
  assert.equal(typeof response.body.detail, 'string', where);
  const scimType: string | undefined = response.body.scimType;
  if (scimType !== undefined) {
    assert.ok(Object.hasOwn(scimErrorStatus, scimType), `uncatalogued scimType ${scimType}: ${where}`);
    assert.equal(scimErrorStatus[scimType as keyof typeof scimErrorStatus], response.status, where);
  }
  return scimType;
}

/** A raw request: the body goes as given (bytes or text), with exactly the headers given. */
export async function rawCall(t: TestService, method: string, path: string, headers: Record<string, string>, body?: string | Uint8Array): Promise<Response> {
  const response = await fetch(`${t.url}${path}`, { method, headers, body });
  const text = await response.text();
  let parsed: unknown = text;
  if (response.headers.get('content-type')?.includes('json') && text) parsed = JSON.parse(text);
  return { status: response.status, headers: response.headers, body: parsed };
}

/** fast-check's run count for a property, scaled down on PostgreSQL where each run costs round trips. */
export function runs(backend: Backend, sqlite: number): number {
  return backend.name === 'postgres' ? Math.max(20, Math.round(sqlite / 3)) : sqlite;
}
