import { ConflictError, type ConflictSubject, type Store } from './store.ts';
import { UniqueViolation, type SqlDriver } from './sql-driver.ts';
import { keysetPage } from './keyset-page.ts';
import { canonicalHandle } from '../validation/handle.ts';
import { revokeTokensOfParty, TokenTables } from './sql-store-tokens.ts';
import {
  toApiKey, toClient, toOrganization, toPerson,
  type ApiKeyRow, type ClientRow, type OrganizationRow, type PersonRow,
} from './rows.ts';
import type {
  ApiKey, AuditEvent, Handle, OAuthClient, OpaqueToken, Organization, OrganizationConfig, Page, PageRequest, Person, SigningKey,
} from './types.ts';

const conflictByTable: Record<string, ConflictSubject> = {
  organizations: 'organization_name',
  api_keys: 'api_key_name',
  person_handles: 'person_handle',
};

/** Rethrows a unique-index refusal as the domain's ConflictError; anything else unchanged. */
function conflict(error: unknown, handle?: Handle): never {
  if (error instanceof UniqueViolation) throw new ConflictError(conflictByTable[error.table] ?? 'secret', handle);
  throw error;
}

/** The Store over either SQL dialect: statements are written once, in the common subset. */
export class SqlStore implements Store {
  readonly #db: SqlDriver;
  readonly #tokens: TokenTables;

  constructor(driver: SqlDriver) {
    this.#db = driver;
    this.#tokens = new TokenTables(driver);
  }

  get dialect() {
    return this.#db.dialect;
  }

  async ping(): Promise<void> {
    await this.#db.all('SELECT 1 AS ok');
  }

  close(): Promise<void> {
    return this.#db.close();
  }

  async createOrganization(org: Organization, firstKey: ApiKey): Promise<void> {
    await this.#db
      .transaction(async (tx) => {
        await tx.run('INSERT INTO organizations (id, name, config, created_at) VALUES ($1, $2, $3, $4)', [
          org.id, org.name, JSON.stringify(org.config), org.createdAt,
        ]);
        await insertApiKey(tx, firstKey);
      })
      .catch((error) => conflict(error));
  }

  async getOrganization(id: string): Promise<Organization | undefined> {
    const [row] = await this.#db.all<OrganizationRow>('SELECT * FROM organizations WHERE id = $1', [id]);
    return row && toOrganization(row);
  }

  async getOrganizationByName(name: string): Promise<Organization | undefined> {
    const [row] = await this.#db.all<OrganizationRow>('SELECT * FROM organizations WHERE name = $1', [name]);
    return row && toOrganization(row);
  }

  async updateOrganizationConfig(id: string, update: (current: OrganizationConfig) => OrganizationConfig): Promise<Organization | undefined> {
    // SQLite's BEGIN IMMEDIATE already serialises writers; PostgreSQL needs the row lock.
    const lock = this.#db.dialect === 'postgres' ? ' FOR UPDATE' : '';
    return this.#db.transaction(async (tx) => {
      const [current] = await tx.all<OrganizationRow>(`SELECT * FROM organizations WHERE id = $1${lock}`, [id]);
      if (!current) return undefined;
      const config = update(toOrganization(current).config);
      const [row] = await tx.all<OrganizationRow>('UPDATE organizations SET config = $2 WHERE id = $1 RETURNING *', [id, JSON.stringify(config)]);
      return toOrganization(row!);
    });
  }

  async findOrganizationAndKey(orgId: string, secretHash: string): Promise<{ org: Organization; key: ApiKey | undefined } | undefined> {
    const [row] = await this.#db.all<OrganizationRow & { key_id: string | null; key_name: string; key_kind: string; key_created_at: number }>(
      `SELECT o.*, k.id AS key_id, k.name AS key_name, k.kind AS key_kind, k.created_at AS key_created_at
       FROM organizations o LEFT JOIN api_keys k ON k.org_id = o.id AND k.secret_hash = $2
       WHERE o.id = $1`,
      [orgId, secretHash],
    );
    if (!row) return undefined;
    const key = row.key_id === null
      ? undefined
      : toApiKey({ id: row.key_id, org_id: row.id, name: row.key_name, kind: row.key_kind, secret_hash: secretHash, created_at: row.key_created_at });
    return { org: toOrganization(row), key };
  }

  async createApiKey(key: ApiKey): Promise<void> {
    await insertApiKey(this.#db, key).catch((error) => conflict(error));
  }

  async findApiKeyBySecretHash(secretHash: string): Promise<ApiKey | undefined> {
    const [row] = await this.#db.all<ApiKeyRow>('SELECT * FROM api_keys WHERE secret_hash = $1', [secretHash]);
    return row && toApiKey(row);
  }

  listApiKeys(orgId: string, page: PageRequest): Promise<Page<ApiKey>> {
    return keysetPage(this.#db, 'api_keys', orgId, page, toApiKey);
  }

  async deleteApiKey(orgId: string, id: string): Promise<boolean> {
    return (await this.#db.run('DELETE FROM api_keys WHERE org_id = $1 AND id = $2', [orgId, id])) > 0;
  }

  deleteApiKeysByName(orgId: string, name: string): Promise<number> {
    return this.#db.run('DELETE FROM api_keys WHERE org_id = $1 AND name = $2', [orgId, name]);
  }

  async createPerson(person: Person): Promise<void> {
    const handles = person.handles.map(canonicalHandle);
    await this.#db.transaction(async (tx) => {
      await tx.run('INSERT INTO persons (id, org_id, handles, roles, console, created_at) VALUES ($1, $2, $3, $4, $5, $6)', [
        person.id, person.orgId, JSON.stringify(handles), JSON.stringify(person.roles), person.console, person.createdAt,
      ]);
      // One insert per handle, so a refusal names exactly the handle that is taken.
      for (const handle of handles) {
        await tx
          .run('INSERT INTO person_handles (org_id, type, value, person_id) VALUES ($1, $2, $3, $4)', [
            person.orgId, handle.type, handle.value, person.id,
          ])
          .catch((error) => conflict(error, handle));
      }
    });
  }

  async getPerson(orgId: string, id: string): Promise<Person | undefined> {
    const [row] = await this.#db.all<PersonRow>('SELECT * FROM persons WHERE org_id = $1 AND id = $2', [orgId, id]);
    return row && toPerson(row);
  }

  async findPersonByHandle(orgId: string, given: Handle): Promise<Person | undefined> {
    const handle = canonicalHandle(given);
    const [row] = await this.#db.all<PersonRow>(
      `SELECT p.* FROM person_handles h JOIN persons p ON p.id = h.person_id
       WHERE h.org_id = $1 AND h.type = $2 AND h.value = $3`,
      [orgId, handle.type, handle.value],
    );
    return row && toPerson(row);
  }

  listPersons(orgId: string, page: PageRequest): Promise<Page<Person>> {
    return keysetPage(this.#db, 'persons', orgId, page, toPerson);
  }

  deletePerson(orgId: string, id: string, at: number): Promise<boolean> {
    return this.#deleteParty('persons', orgId, id, at);
  }

  async createClient(client: OAuthClient): Promise<void> {
    await this.#db
      .run(
        `INSERT INTO oauth_clients (id, org_id, name, scopes, grant_types, access_token_duration, access_token_format, secret_hash, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
        [
          client.id, client.orgId, client.name, JSON.stringify(client.scopes), JSON.stringify(client.grantTypes),
          client.accessTokenDuration, client.accessTokenFormat, client.secretHash, client.createdAt,
        ],
      )
      .catch((error) => conflict(error));
  }

  async getClient(orgId: string, id: string): Promise<OAuthClient | undefined> {
    const [row] = await this.#db.all<ClientRow>('SELECT * FROM oauth_clients WHERE org_id = $1 AND id = $2', [orgId, id]);
    return row && toClient(row);
  }

  async findClient(id: string): Promise<OAuthClient | undefined> {
    const [row] = await this.#db.all<ClientRow>('SELECT * FROM oauth_clients WHERE id = $1', [id]);
    return row && toClient(row);
  }

  async findClientWithConfig(id: string): Promise<{ client: OAuthClient; config: OrganizationConfig } | undefined> {
    const [row] = await this.#db.all<ClientRow & { org_config: string | object }>(
      'SELECT c.*, o.config AS org_config FROM oauth_clients c JOIN organizations o ON o.id = c.org_id WHERE c.id = $1',
      [id],
    );
    if (!row) return undefined;
    return { client: toClient(row), config: toOrganization({ id: row.org_id, name: '', config: row.org_config, created_at: 0 }).config };
  }

  listClients(orgId: string, page: PageRequest): Promise<Page<OAuthClient>> {
    return keysetPage(this.#db, 'oauth_clients', orgId, page, toClient);
  }

  deleteClient(orgId: string, id: string, at: number): Promise<boolean> {
    return this.#deleteParty('oauth_clients', orgId, id, at);
  }

  /** The row and the revocation of its tokens commit together or not at all. */
  #deleteParty(table: 'persons' | 'oauth_clients', orgId: string, id: string, at: number): Promise<boolean> {
    return this.#db.transaction(async (tx) => {
      const deleted = await tx.run(`DELETE FROM ${table} WHERE org_id = $1 AND id = $2`, [orgId, id]);
      if (deleted === 0) return false;
      await revokeTokensOfParty(tx, orgId, id, at);
      return true;
    });
  }

  async replaceClientSecret(orgId: string, id: string, secretHash: string): Promise<boolean> {
    const changed = await this.#db.run('UPDATE oauth_clients SET secret_hash = $3 WHERE org_id = $1 AND id = $2', [
      orgId, id, secretHash,
    ]);
    return changed > 0;
  }

  listSigningKeys(): Promise<SigningKey[]> {
    return this.#tokens.listSigningKeys();
  }
  ensureActiveSigningKey(candidate: SigningKey): Promise<SigningKey> {
    return this.#tokens.ensureActiveSigningKey(candidate);
  }
  rotateSigningKey(next: SigningKey, at: number): Promise<void> {
    return this.#tokens.rotateSigningKey(next, at);
  }
  insertToken(token: OpaqueToken): Promise<void> {
    return this.#tokens.insertToken(token);
  }
  findToken(hash: string): Promise<OpaqueToken | undefined> {
    return this.#tokens.findToken(hash);
  }
  revokeTokenTree(hash: string, at: number): Promise<number> {
    return this.#tokens.revokeTokenTree(hash, at);
  }
  deleteExpiredTokens(before: number, limit: number): Promise<number> {
    return this.#tokens.deleteExpiredTokens(before, limit);
  }
  isLineageRevoked(hash: string): Promise<boolean> {
    return this.#tokens.isLineageRevoked(hash);
  }
  recordAuditEvent(event: AuditEvent): Promise<void> {
    return this.#tokens.recordAuditEvent(event);
  }
  listAuditEvents(orgId: string, type: string | undefined, page: PageRequest): Promise<Page<AuditEvent>> {
    return this.#tokens.listAuditEvents(orgId, type, page);
  }
}

function insertApiKey(db: Pick<SqlDriver, 'run'>, key: ApiKey): Promise<number> {
  return db.run('INSERT INTO api_keys (id, org_id, name, kind, secret_hash, created_at) VALUES ($1, $2, $3, $4, $5, $6)', [
    key.id, key.orgId, key.name, key.kind, key.secretHash, key.createdAt,
  ]);
}
