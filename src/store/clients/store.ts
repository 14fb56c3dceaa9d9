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
  secretHash: string;
  createdAt: number;
}

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
}
