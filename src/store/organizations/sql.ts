import { organizationConfigDefaults } from '../../config/defaults.ts';
import { keysetPage } from '../keyset-page.ts';
import type { Page, PageRequest } from '../page.ts';
import { type Json, json, time } from '../rows.ts';
import { rethrowAsConflict, type SqlDriver, type SqlExecutor } from '../sql-driver.ts';
import type { ApiKey, Organization, OrganizationConfig, OrganizationStore } from './store.ts';

interface OrganizationRow {
  id: string;
  name: string;
  config: Json;
  created_at: number;
}
interface ApiKeyRow {
  id: string;
  org_id: string;
  name: string;
  kind: string;
  secret_hash: string;
  created_at: number;
}

const conflictSubjects = { organizations: 'organization_name', api_keys: 'api_key_name' } as const;

function toOrganization(row: OrganizationRow): Organization {
  // A configuration stored before a field existed reads as that field's default.
  const config = { ...structuredClone(organizationConfigDefaults), ...json<Partial<OrganizationConfig>>(row.config) };
  return { id: row.id, name: row.name, config, createdAt: time(row.created_at) };
}

function toApiKey(row: ApiKeyRow): ApiKey {
  return {
    id: row.id,
    orgId: row.org_id,
    name: row.name,
    kind: row.kind as ApiKey['kind'],
    secretHash: row.secret_hash,
    createdAt: time(row.created_at),
  };
}

function insertApiKey(db: SqlExecutor, key: ApiKey): Promise<number> {
  return db.run('INSERT INTO api_keys (id, org_id, name, kind, secret_hash, created_at) VALUES ($1, $2, $3, $4, $5, $6)', [
    key.id,
    key.orgId,
    key.name,
    key.kind,
    key.secretHash,
    key.createdAt,
  ]);
}

/**
 * Serialises the key changes that must see every admin key of the organisation: SQLite's
 * BEGIN IMMEDIATE already serialises writers; PostgreSQL needs the organisation's row lock.
 */
export async function lockOrganization(dialect: SqlDriver['dialect'], tx: SqlExecutor, orgId: string): Promise<void> {
  // NO KEY UPDATE: it serialises these changes against each other, but not against the KEY SHARE
  // lock that inserting a row referencing the organisation takes (an audit event): with FOR UPDATE
  // a change of a person and its event, racing a console change of that person, deadlocked.
  if (dialect === 'postgres') await tx.all('SELECT id FROM organizations WHERE id = $1 FOR NO KEY UPDATE', [orgId]);
}

/** The organisation store over either SQL dialect: tables organizations and api_keys. */
export function sqlOrganizationStore(db: SqlDriver): OrganizationStore {
  return {
    async createOrganization(org: Organization, firstKey: ApiKey): Promise<void> {
      await db
        .transaction(async (tx) => {
          await tx.run('INSERT INTO organizations (id, name, config, created_at) VALUES ($1, $2, $3, $4)', [
            org.id,
            org.name,
            JSON.stringify(org.config),
            org.createdAt,
          ]);
          await insertApiKey(tx, firstKey);
        })
        .catch((error) => rethrowAsConflict(error, conflictSubjects));
    },

    async getOrganization(id: string): Promise<Organization | undefined> {
      const [row] = await db.all<OrganizationRow>('SELECT * FROM organizations WHERE id = $1', [id]);
      return row && toOrganization(row);
    },

    async getOrganizationByName(name: string): Promise<Organization | undefined> {
      const [row] = await db.all<OrganizationRow>('SELECT * FROM organizations WHERE name = $1', [name]);
      return row && toOrganization(row);
    },

    updateOrganizationConfig(id: string, update: (current: OrganizationConfig) => OrganizationConfig): Promise<Organization | undefined> {
      // SQLite's BEGIN IMMEDIATE already serialises writers; PostgreSQL needs the row lock.
      const lock = db.dialect === 'postgres' ? ' FOR UPDATE' : '';
      return db.transaction(async (tx) => {
        const [current] = await tx.all<OrganizationRow>(`SELECT * FROM organizations WHERE id = $1${lock}`, [id]);
        if (!current) return undefined;
        const config = update(toOrganization(current).config);
        const [row] = await tx.all<OrganizationRow>('UPDATE organizations SET config = $2 WHERE id = $1 RETURNING *', [id, JSON.stringify(config)]);
        return toOrganization(row!);
      });
    },

    async findOrganizationAndKey(orgId: string, secretHash: string): Promise<{ org: Organization; key: ApiKey | undefined } | undefined> {
      const [row] = await db.all<OrganizationRow & { key_id: string | null; key_name: string; key_kind: string; key_created_at: number }>(
        `SELECT o.*, k.id AS key_id, k.name AS key_name, k.kind AS key_kind, k.created_at AS key_created_at
         FROM organizations o LEFT JOIN api_keys k ON k.org_id = o.id AND k.secret_hash = $2
         WHERE o.id = $1`,
        [orgId, secretHash],
      );
      if (!row) return undefined;
      const key =
        row.key_id === null
          ? undefined
          : toApiKey({ id: row.key_id, org_id: row.id, name: row.key_name, kind: row.key_kind, secret_hash: secretHash, created_at: row.key_created_at });
      return { org: toOrganization(row), key };
    },

    async createApiKey(key: ApiKey): Promise<void> {
      await insertApiKey(db, key).catch((error) => rethrowAsConflict(error, conflictSubjects));
    },

    async findApiKeyBySecretHash(secretHash: string): Promise<ApiKey | undefined> {
      const [row] = await db.all<ApiKeyRow>('SELECT * FROM api_keys WHERE secret_hash = $1', [secretHash]);
      return row && toApiKey(row);
    },

    listApiKeys(orgId: string, page: PageRequest): Promise<Page<ApiKey>> {
      return keysetPage(db, 'api_keys', orgId, page, toApiKey);
    },

    async getApiKey(orgId: string, id: string): Promise<ApiKey | undefined> {
      const [row] = await db.all<ApiKeyRow>('SELECT * FROM api_keys WHERE org_id = $1 AND id = $2', [orgId, id]);
      return row && toApiKey(row);
    },

    deleteApiKeyKeepingAnAdmin(orgId: string, id: string): Promise<'deleted' | 'not_found' | 'last_admin_key'> {
      return db.transaction(async (tx) => {
        await lockOrganization(db.dialect, tx, orgId);
        const [key] = await tx.all<{ kind: string }>('SELECT kind FROM api_keys WHERE org_id = $1 AND id = $2', [orgId, id]);
        if (!key) return 'not_found';
        if (key.kind === 'admin') {
          const [{ admins }] = (await tx.all<{ admins: number }>("SELECT COUNT(*) AS admins FROM api_keys WHERE org_id = $1 AND kind = 'admin'", [orgId])) as [
            { admins: number },
          ];
          if (Number(admins) <= 1) return 'last_admin_key';
        }
        return (await tx.run('DELETE FROM api_keys WHERE org_id = $1 AND id = $2', [orgId, id])) > 0 ? 'deleted' : 'not_found';
      });
    },

    replaceApiKeyById(orgId: string, id: string, replacement: ApiKey): Promise<boolean> {
      return db
        .transaction(async (tx) => {
          await lockOrganization(db.dialect, tx, orgId);
          // Deleted first: the replacement keeps the name, which is unique per organisation.
          if ((await tx.run('DELETE FROM api_keys WHERE org_id = $1 AND id = $2', [orgId, id])) === 0) return false;
          await insertApiKey(tx, replacement);
          return true;
        })
        .catch((error) => rethrowAsConflict(error, conflictSubjects));
    },

    async deleteApiKey(orgId: string, id: string): Promise<boolean> {
      return (await db.run('DELETE FROM api_keys WHERE org_id = $1 AND id = $2', [orgId, id])) > 0;
    },

    deleteApiKeysByName(orgId: string, name: string): Promise<number> {
      return db.run('DELETE FROM api_keys WHERE org_id = $1 AND name = $2', [orgId, name]);
    },
  };
}
