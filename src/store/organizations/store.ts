import type { OrganizationConfig } from '../../config/defaults.ts';
import type { Page, PageRequest } from '../page.ts';

export type { OrganizationConfig } from '../../config/defaults.ts';

export interface Organization {
  id: string;
  name: string;
  config: OrganizationConfig;
  createdAt: number;
}

export const apiKeyKinds = ['admin', 'integration'] as const;
export type ApiKeyKind = (typeof apiKeyKinds)[number];

export interface ApiKey {
  id: string;
  orgId: string;
  name: string;
  kind: ApiKeyKind;
  secretHash: string;
  createdAt: number;
}

/**
 * Organisations, their configuration and their API keys. Key names are unique per
 * organisation (ConflictError 'api_key_name'), organisation names globally ('organization_name').
 */
export interface OrganizationStore {
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
  getApiKey(orgId: string, id: string): Promise<ApiKey | undefined>;
  deleteApiKey(orgId: string, id: string): Promise<boolean>;
  /**
   * Deletes the key unless it is the organisation's last admin key, deciding under the
   * organisation's lock so that two revocations running at once cannot both pass the check.
   */
  deleteApiKeyKeepingAnAdmin(orgId: string, id: string): Promise<'deleted' | 'not_found' | 'last_admin_key'>;
  /**
   * Replaces key `id` by `replacement` (its name and kind, a new id and secret) in one
   * transaction: no request ever sees neither key. False (nothing changed) when `id` is gone.
   */
  replaceApiKeyById(orgId: string, id: string, replacement: ApiKey): Promise<boolean>;
  /** Deletes every key of the organisation with this name; returns how many went. */
  deleteApiKeysByName(orgId: string, name: string): Promise<number>;
}
