import type {
  ApiKey, AuditEvent, Handle, OAuthClient, OpaqueToken, Organization, OrganizationConfig, Page, PageRequest, Person, SigningKey,
} from './types.ts';

/**
 * Everything the service persists. Implementations must be safe for many service replicas
 * over one database: nothing here may rely on process memory for correctness.
 *
 * Writes that collide with a uniqueness rule throw {@link ConflictError}; a database that
 * cannot be reached throws {@link StorageUnavailableError}. Methods scoped to an
 * organisation never see another organisation's rows.
 */
export interface Store {
  readonly dialect: 'sqlite' | 'postgres';
  /** Cheap round trip for health checks. */
  ping(): Promise<void>;
  close(): Promise<void>;

  /** Creates the organisation and its first admin key atomically. */
  createOrganization(org: Organization, firstKey: ApiKey): Promise<void>;
  getOrganization(id: string): Promise<Organization | undefined>;
  getOrganizationByName(name: string): Promise<Organization | undefined>;
  /**
   * Replaces the configuration with `update(current)` atomically: concurrent updates (from any
   * replica) apply one after the other, none is lost. If `update` throws, nothing changes.
   */
  updateOrganizationConfig(id: string, update: (current: OrganizationConfig) => OrganizationConfig): Promise<Organization | undefined>;

  /**
   * One round trip for request authentication: the organisation, and the key with this hash
   * if it belongs to that organisation (undefined for an unknown or foreign key).
   */
  findOrganizationAndKey(orgId: string, secretHash: string): Promise<{ org: Organization; key: ApiKey | undefined } | undefined>;
  createApiKey(key: ApiKey): Promise<void>;
  findApiKeyBySecretHash(secretHash: string): Promise<ApiKey | undefined>;
  listApiKeys(orgId: string, page: PageRequest): Promise<Page<ApiKey>>;
  deleteApiKey(orgId: string, id: string): Promise<boolean>;
  /** Deletes every key of the organisation with this name; returns how many went. */
  deleteApiKeysByName(orgId: string, name: string): Promise<number>;

  /**
   * Handles are kept and compared in their canonical form (validation/handle.ts, canonicalHandle:
   * email addresses NFC and lower-cased), whatever spelling the caller passes: a handle taken in
   * one spelling is taken in all, and a look-up in any spelling finds its person.
   */
  createPerson(person: Person): Promise<void>;
  getPerson(orgId: string, id: string): Promise<Person | undefined>;
  /** Finds the person holding the handle, compared in canonical form (see createPerson). */
  findPersonByHandle(orgId: string, handle: Handle): Promise<Person | undefined>;
  listPersons(orgId: string, page: PageRequest): Promise<Page<Person>>;
  /**
   * Deletes the person (their handles go with them) and revokes, in the same transaction,
   * every opaque token issued to or for them with every token exchanged from those, at `at`.
   * Either both happen or neither does. Returns false, changing nothing, for an unknown id.
   */
  deletePerson(orgId: string, id: string, at: number): Promise<boolean>;

  createClient(client: OAuthClient): Promise<void>;
  getClient(orgId: string, id: string): Promise<OAuthClient | undefined>;
  /** Looks a client up by id alone, as the token endpoint must (the client names its org). */
  findClient(id: string): Promise<OAuthClient | undefined>;
  /** The client with its organisation's configuration, in one look-up (token endpoint hot path). */
  findClientWithConfig(id: string): Promise<{ client: OAuthClient; config: OrganizationConfig } | undefined>;
  listClients(orgId: string, page: PageRequest): Promise<Page<OAuthClient>>;
  /** Deletes the client and revokes its tokens atomically, exactly as {@link Store.deletePerson}. */
  deleteClient(orgId: string, id: string, at: number): Promise<boolean>;
  replaceClientSecret(orgId: string, id: string, secretHash: string): Promise<boolean>;

  /** Every signing key still on record, newest first. */
  listSigningKeys(): Promise<SigningKey[]>;
  /** Makes `candidate` the active key unless one already is; returns the active key either way. */
  ensureActiveSigningKey(candidate: SigningKey): Promise<SigningKey>;
  /** Retires the active key and makes `next` active, in one transaction. */
  rotateSigningKey(next: SigningKey, at: number): Promise<void>;

  insertToken(token: OpaqueToken): Promise<void>;
  findToken(hash: string): Promise<OpaqueToken | undefined>;
  /** Revokes the token and every token exchanged from it, transitively; returns how many it revoked. */
  revokeTokenTree(hash: string, at: number): Promise<number>;
  /**
   * Whether this token or any token it was exchanged from is revoked. Checked when a token
   * is used, so a token exchanged concurrently with its parent's revocation is caught too.
   */
  isLineageRevoked(hash: string): Promise<boolean>;
  /** Deletes up to `limit` opaque tokens that expired before `before`; returns how many. */
  deleteExpiredTokens(before: number, limit: number): Promise<number>;

  recordAuditEvent(event: AuditEvent): Promise<void>;
  listAuditEvents(orgId: string, type: string | undefined, page: PageRequest): Promise<Page<AuditEvent>>;
}

export type ConflictSubject = 'organization_name' | 'api_key_name' | 'person_handle' | 'secret';

/** A write broke a uniqueness rule; nothing of it was kept. */
export class ConflictError extends Error {
  readonly subject: ConflictSubject;
  /** For person handles: the handle that is taken. */
  readonly handle: Handle | undefined;
  constructor(subject: ConflictSubject, handle?: Handle) {
    super(`unique rule broken: ${subject}`);
    this.name = 'ConflictError';
    this.subject = subject;
    this.handle = handle;
  }
}

/** The database could not be reached or went away mid-operation; nothing was committed. */
export class StorageUnavailableError extends Error {
  constructor(cause: unknown) {
    super('storage unavailable', { cause });
    this.name = 'StorageUnavailableError';
  }
}
