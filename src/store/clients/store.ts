import type { JWK } from 'jose';
import type { OrganizationConfig } from '../organizations/store.ts';
import type { Page, PageRequest } from '../page.ts';

export const clientGrantTypes = ['client_credentials', 'urn:ietf:params:oauth:grant-type:token-exchange'] as const;
export type ClientGrantType = (typeof clientGrantTypes)[number];

export const accessTokenFormats = ['opaque', 'jwt'] as const;
export type AccessTokenFormat = (typeof accessTokenFormats)[number];

export interface OAuthClient {
  id: string;
  orgId: string;
  name: string;
  scopes: string[];
  grantTypes: ClientGrantType[];
  /** Lifetime in seconds of the access tokens the client is issued (before the org ceiling). */
  accessTokenDuration: number;
  accessTokenFormat: AccessTokenFormat;
  /** How it proves who it is at the token endpoint (design §4); a secret client may use Basic or the body. */
  authMethod: ClientAuthMethod;
  /**
   * SHA-256 of its secret. A keyed client (private_key_jwt) is given none: this is then the hash
   * of a random value nobody was shown, and its method refuses secrets before any is compared.
   */
  secretHash: string;
  /** private_key_jwt: its public keys inline (RFC 7591 `jwks`), or where to fetch them (`jwksUri`). */
  jwks?: { keys: JWK[] };
  jwksUri?: string;
  /** spiffe_jwt: the SPIFFE ID its JWT-SVIDs name as `sub` (draft-ietf-oauth-spiffe-client-auth-02 `spiffe_id`). */
  spiffeId?: string;
  createdAt: number;
}

export const clientAuthMethods = ['client_secret_basic', 'client_secret_post', 'private_key_jwt', 'spiffe_jwt'] as const;
export type ClientAuthMethod = (typeof clientAuthMethods)[number];

/** How a client authenticates and with what: what PATCH /oauth2/clients/{id} replaces at once. */
export type ClientAuthentication = Pick<OAuthClient, 'authMethod' | 'secretHash' | 'jwks' | 'jwksUri' | 'spiffeId'>;

/** The secret methods: a client registered with either may use both (as every client could before design §4's keyed ones). */
export const SECRET_METHODS: readonly ClientAuthMethod[] = ['client_secret_basic', 'client_secret_post'];

/** OAuth2 clients of an organisation. A secret hash is unique (ConflictError 'secret'). */
export interface ClientStore {
  createClient(client: OAuthClient): Promise<void>;
  getClient(orgId: string, id: string): Promise<OAuthClient | undefined>;
  /** Looks a client up by id alone, as the token endpoint must (the client names its org). */
  findClient(id: string): Promise<OAuthClient | undefined>;
  /** The client with its organisation's configuration, in one look-up (token endpoint hot path). */
  findClientWithConfig(id: string): Promise<{ client: OAuthClient; config: OrganizationConfig } | undefined>;
  listClients(orgId: string, page: PageRequest): Promise<Page<OAuthClient>>;
  /** Deletes the client and revokes its tokens atomically, exactly as PersonStore.deletePerson. */
  deleteClient(orgId: string, id: string, at: number): Promise<boolean>;
  replaceClientSecret(orgId: string, id: string, secretHash: string): Promise<boolean>;
  /** Replaces the method and everything it uses (keys, key URL, SPIFFE ID, secret hash); false when no such client. */
  replaceClientAuthentication(orgId: string, id: string, authentication: ClientAuthentication): Promise<boolean>;
  /** The clients registered for spiffe_jwt with this SPIFFE ID, in any organisation; at most `limit`. */
  findClientsBySpiffeId(spiffeId: string, limit: number): Promise<{ client: OAuthClient; config: OrganizationConfig }[]>;
  /**
   * Spends a client assertion's jti (as its SHA-256) until `expiresAt`: true the first time, false
   * while an earlier use is unexpired, across every process on the database.
   */
  spendClientAssertion(clientId: string, jtiHash: string, expiresAt: number, now: number): Promise<boolean>;
  /** Removes at most `limit` spent jtis whose assertion expired before `before`; returns how many. */
  purgeClientAssertions(before: number, limit: number): Promise<number>;
}
