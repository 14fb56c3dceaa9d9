import { keysetPage } from '../keyset-page.ts';
import type { Page, PageRequest } from '../page.ts';
import { time } from '../rows.ts';
import { rethrowAsConflict, type SqlDriver } from '../sql-driver.ts';
import type { ConnectionStore, ConnectionType, IdentityConnection } from './store.ts';

interface ConnectionRow {
  id: string;
  org_id: string;
  name: string;
  type: string;
  token_hash: string | null;
  base_url: string | null;
  sealed_bearer_token: string | null;
  created_at: number;
}

const conflictSubjects = { identity_connections: 'connection_name' } as const;

function toConnection(row: ConnectionRow): IdentityConnection {
  return {
    id: row.id,
    orgId: row.org_id,
    name: row.name,
    type: row.type as ConnectionType,
    tokenHash: row.token_hash,
    baseUrl: row.base_url,
    sealedBearerToken: row.sealed_bearer_token,
    createdAt: time(row.created_at),
  };
}

/** The connection store over either SQL dialect: table identity_connections. */
export function sqlConnectionStore(db: SqlDriver): ConnectionStore {
  return {
    async createConnection(c: IdentityConnection): Promise<void> {
      await db
        .run(
          `INSERT INTO identity_connections (id, org_id, name, type, token_hash, base_url, sealed_bearer_token, created_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
          [c.id, c.orgId, c.name, c.type, c.tokenHash, c.baseUrl, c.sealedBearerToken, c.createdAt],
        )
        .catch((error) => rethrowAsConflict(error, conflictSubjects));
    },

    async getConnection(orgId: string, id: string): Promise<IdentityConnection | undefined> {
      const [row] = await db.all<ConnectionRow>('SELECT * FROM identity_connections WHERE org_id = $1 AND id = $2', [orgId, id]);
      return row && toConnection(row);
    },

    async findConnectionByTokenHash(tokenHash: string): Promise<IdentityConnection | undefined> {
      const [row] = await db.all<ConnectionRow>('SELECT * FROM identity_connections WHERE token_hash = $1', [tokenHash]);
      return row && toConnection(row);
    },

    listConnections(orgId: string, page: PageRequest): Promise<Page<IdentityConnection>> {
      return keysetPage(db, 'identity_connections', orgId, page, toConnection);
    },

    async deleteConnection(orgId: string, id: string): Promise<boolean> {
      // The identities go by their foreign key's ON DELETE CASCADE, in this statement.
      return (await db.run('DELETE FROM identity_connections WHERE org_id = $1 AND id = $2', [orgId, id])) > 0;
    },

    async replaceConnectionToken(orgId: string, id: string, tokenHash: string): Promise<boolean> {
      const changed = await db
        .run("UPDATE identity_connections SET token_hash = $3 WHERE org_id = $1 AND id = $2 AND type = 'scim'", [orgId, id, tokenHash])
        .catch((error) => rethrowAsConflict(error, conflictSubjects));
      return changed > 0;
    },
  };
}
