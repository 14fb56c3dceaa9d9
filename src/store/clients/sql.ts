import type { JWK } from 'jose';
import { keysetPage } from '../keyset-page.ts';
import type { OrganizationConfig } from '../organizations/store.ts';
import type { Page, PageRequest } from '../page.ts';
import { deleteParty, type PartyDeletionStep } from '../party-deletion.ts';
import { type Json, json, time } from '../rows.ts';
import { rethrowAsConflict, type SqlDriver } from '../sql-driver.ts';
import type { ClientAuthentication, ClientStore, OAuthClient } from './store.ts';

interface ClientRow {
  id: string;
  org_id: string;
  name: string;
  scopes: Json;
  grant_types: Json;
  access_token_duration: number;
  access_token_format: string;
  token_endpoint_auth_method: string;
  secret_hash: string;
  jwks: Json | null;
  jwks_uri: string | null;
  spiffe_id: string | null;
  created_at: number;
}

/** The token endpoint's read: a client with its organisation's configuration. */
const WITH_CONFIG = 'SELECT c.*, o.config AS org_config FROM oauth_clients c JOIN organizations o ON o.id = c.org_id';

/** A clash on oauth_clients can only be its unique secret hash. */
const conflictSubjects = { oauth_clients: 'secret' } as const;

function toClient(row: ClientRow): OAuthClient {
  return {
    id: row.id,
    orgId: row.org_id,
    name: row.name,
    scopes: json(row.scopes),
    grantTypes: json(row.grant_types),
    accessTokenDuration: Number(row.access_token_duration),
    accessTokenFormat: row.access_token_format as OAuthClient['accessTokenFormat'],
    authMethod: row.token_endpoint_auth_method as OAuthClient['authMethod'],
    secretHash: row.secret_hash,
    ...(row.jwks === null ? {} : { jwks: json<{ keys: JWK[] }>(row.jwks) }),
    ...(row.jwks_uri === null ? {} : { jwksUri: row.jwks_uri }),
    ...(row.spiffe_id === null ? {} : { spiffeId: row.spiffe_id }),
    createdAt: time(row.created_at),
  };
}

/**
 * The OAuth2 client store over either SQL dialect: table oauth_clients (read joined with
 * organizations for the token endpoint). `onDelete` runs inside the transaction that deletes a
 * client (see party-deletion.ts).
 */
export function sqlClientStore(db: SqlDriver, onDelete: readonly PartyDeletionStep[]): ClientStore {
  return {
    async createClient(client: OAuthClient): Promise<void> {
      await db
        .run(
          `INSERT INTO oauth_clients (id, org_id, name, scopes, grant_types, access_token_duration, access_token_format, secret_hash, created_at,
             token_endpoint_auth_method, jwks, jwks_uri, spiffe_id)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
          [
            client.id,
            client.orgId,
            client.name,
            JSON.stringify(client.scopes),
            JSON.stringify(client.grantTypes),
            client.accessTokenDuration,
            client.accessTokenFormat,
            client.secretHash,
            client.createdAt,
            client.authMethod,
            client.jwks === undefined ? null : JSON.stringify(client.jwks),
            client.jwksUri ?? null,
            client.spiffeId ?? null,
          ],
        )
        .catch((error) => rethrowAsConflict(error, conflictSubjects));
    },

    async getClient(orgId: string, id: string): Promise<OAuthClient | undefined> {
      const [row] = await db.all<ClientRow>('SELECT * FROM oauth_clients WHERE org_id = $1 AND id = $2', [orgId, id]);
      return row && toClient(row);
    },

    async findClient(id: string): Promise<OAuthClient | undefined> {
      const [row] = await db.all<ClientRow>('SELECT * FROM oauth_clients WHERE id = $1', [id]);
      return row && toClient(row);
    },

    async findClientWithConfig(id: string): Promise<{ client: OAuthClient; config: OrganizationConfig } | undefined> {
      const [row] = await db.all<ClientRow & { org_config: Json }>(`${WITH_CONFIG} WHERE c.id = $1`, [id]);
      return row && { client: toClient(row), config: json<OrganizationConfig>(row.org_config) };
    },

    async findClientsBySpiffeId(spiffeId: string, limit: number): Promise<{ client: OAuthClient; config: OrganizationConfig }[]> {
      const rows = await db.all<ClientRow & { org_config: Json }>(
        `${WITH_CONFIG} WHERE c.spiffe_id = $1 AND c.token_endpoint_auth_method = 'spiffe_jwt' ORDER BY c.id LIMIT $2`,
        [spiffeId, limit],
      );
      return rows.map((row) => ({ client: toClient(row), config: json<OrganizationConfig>(row.org_config) }));
    },

    listClients(orgId: string, page: PageRequest): Promise<Page<OAuthClient>> {
      return keysetPage(db, 'oauth_clients', orgId, page, toClient);
    },

    deleteClient(orgId: string, id: string, at: number): Promise<boolean> {
      return deleteParty(db, 'oauth_clients', onDelete, orgId, id, at);
    },

    async replaceClientSecret(orgId: string, id: string, secretHash: string): Promise<boolean> {
      const changed = await db.run('UPDATE oauth_clients SET secret_hash = $3 WHERE org_id = $1 AND id = $2', [orgId, id, secretHash]);
      return changed > 0;
    },

    async replaceClientAuthentication(orgId: string, id: string, authentication: ClientAuthentication): Promise<boolean> {
      const changed = await db.run(
        `UPDATE oauth_clients SET token_endpoint_auth_method = $3, secret_hash = $4, jwks = $5, jwks_uri = $6, spiffe_id = $7
         WHERE org_id = $1 AND id = $2`,
        [
          orgId,
          id,
          authentication.authMethod,
          authentication.secretHash,
          authentication.jwks === undefined ? null : JSON.stringify(authentication.jwks),
          authentication.jwksUri ?? null,
          authentication.spiffeId ?? null,
        ],
      );
      return changed > 0;
    },

    async spendClientAssertion(clientId: string, jtiHash: string, expiresAt: number, now: number): Promise<boolean> {
      // One statement, so two replicas given the same assertion cannot both see it unspent; an
      // expired earlier use of the jti is overwritten (its assertion can no longer be replayed).
      const changed = await db.run(
        `INSERT INTO client_assertion_jtis (client_id, jti_hash, expires_at) VALUES ($1, $2, $3)
         ON CONFLICT (client_id, jti_hash) DO UPDATE SET expires_at = excluded.expires_at WHERE client_assertion_jtis.expires_at <= $4`,
        [clientId, jtiHash, expiresAt, now],
      );
      return changed > 0;
    },

    purgeClientAssertions(before: number, limit: number): Promise<number> {
      return db.run(
        'DELETE FROM client_assertion_jtis WHERE (client_id, jti_hash) IN (SELECT client_id, jti_hash FROM client_assertion_jtis WHERE expires_at < $1 LIMIT $2)',
        [before, limit],
      );
    },
  };
}
