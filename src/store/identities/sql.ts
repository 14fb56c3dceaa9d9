import { type Json, json, time } from '../rows.ts';
import { rethrowAsConflict, type SqlDriver, type SqlExecutor, type SqlParam } from '../sql-driver.ts';
import { caseKey, type Identity, type IdentityCondition, type IdentityQuery, type IdentityStore } from './store.ts';

interface IdentityRow {
  id: string;
  org_id: string;
  connection_id: string;
  user_name: string;
  external_id: string | null;
  email: string | null;
  active: number | boolean;
  deactivated_at: number | string | null;
  display_name: string | null;
  attributes: Json;
  created_at: number;
  updated_at: number;
}

const conflictSubjects = { scim_identities: 'identity_user_name' } as const;

/** Trusted column per filter attribute, and whether the value is compared lower-cased. */
const columns: Record<IdentityCondition['attribute'], [string, boolean]> = {
  id: ['id', false],
  userName: ['user_name_key', true],
  externalId: ['external_id', false],
  email: ['email_key', true],
};

function toIdentity(row: IdentityRow): Identity {
  return {
    id: row.id,
    orgId: row.org_id,
    connectionId: row.connection_id,
    userName: row.user_name,
    externalId: row.external_id,
    email: row.email,
    active: Boolean(row.active),
    deactivatedAt: row.deactivated_at === null ? null : time(row.deactivated_at),
    displayName: row.display_name,
    attributes: json(row.attributes),
    createdAt: time(row.created_at),
    updatedAt: time(row.updated_at),
  };
}

function values(i: Identity): SqlParam[] {
  return [
    i.id,
    i.orgId,
    i.connectionId,
    i.userName,
    caseKey(i.userName),
    i.externalId,
    i.email,
    i.email === null ? null : caseKey(i.email),
    i.active,
    i.displayName,
    JSON.stringify(i.attributes),
    i.createdAt,
    i.updatedAt,
    i.deactivatedAt,
  ];
}

async function write(tx: SqlExecutor, i: Identity, replace: boolean): Promise<void> {
  const sql = replace
    ? `UPDATE scim_identities SET user_name = $4, user_name_key = $5, external_id = $6, email = $7, email_key = $8, active = $9,
         display_name = $10, attributes = $11, created_at = $12, updated_at = $13, deactivated_at = $14 WHERE id = $1 AND org_id = $2 AND connection_id = $3`
    : `INSERT INTO scim_identities (id, org_id, connection_id, user_name, user_name_key, external_id, email, email_key, active,
         display_name, attributes, created_at, updated_at, deactivated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`;
  await tx.run(sql, values(i)).catch((error) => rethrowAsConflict(error, conflictSubjects));
}

/** The identity store over either SQL dialect: table scim_identities. */
export function sqlIdentityStore(db: SqlDriver): IdentityStore {
  return {
    createIdentity: (identity) => write(db, identity, false),

    async getIdentity(orgId, connectionId, id) {
      const [row] = await db.all<IdentityRow>('SELECT * FROM scim_identities WHERE org_id = $1 AND connection_id = $2 AND id = $3', [orgId, connectionId, id]);
      return row && toIdentity(row);
    },

    async findIdentities(orgId: string, connectionId: string, query: IdentityQuery) {
      const params: SqlParam[] = [orgId, connectionId];
      let where = 'org_id = $1 AND connection_id = $2';
      for (const { attribute, value } of query.conditions) {
        const [column, folded] = columns[attribute];
        params.push(folded ? caseKey(value) : value);
        where += ` AND ${column} = $${params.length}`;
      }
      const [{ total }] = (await db.all<{ total: number }>(`SELECT COUNT(*) AS total FROM scim_identities WHERE ${where}`, params)) as [{ total: number }];
      if (query.count === 0) return { total: Number(total), items: [] };
      const rows = await db.all<IdentityRow>(
        `SELECT * FROM scim_identities WHERE ${where} ORDER BY id LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
        [...params, query.count, query.offset],
      );
      return { total: Number(total), items: rows.map(toIdentity) };
    },

    updateIdentity(orgId, connectionId, id, update) {
      // SQLite's BEGIN IMMEDIATE already serialises writers; PostgreSQL needs the row lock.
      const lock = db.dialect === 'postgres' ? ' FOR UPDATE' : '';
      return db.transaction(async (tx) => {
        const [row] = await tx.all<IdentityRow>(`SELECT * FROM scim_identities WHERE org_id = $1 AND connection_id = $2 AND id = $3${lock}`, [
          orgId,
          connectionId,
          id,
        ]);
        if (!row) return undefined;
        const next = { ...update(toIdentity(row)), id, orgId, connectionId };
        await write(tx, next, true);
        return next;
      });
    },

    async deleteIdentity(orgId, connectionId, id) {
      return (await db.run('DELETE FROM scim_identities WHERE org_id = $1 AND connection_id = $2 AND id = $3', [orgId, connectionId, id])) > 0;
    },
  };
}
