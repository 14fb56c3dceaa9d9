/**
 * Pagination, shared by every module store that lists rows, and the records of every module
 * store under one import for code that handles several of them. Each record is declared by
 * its module's store.ts; a new module store declares its records there too and need not add
 * them here.
 */

export type { AuditEvent } from './audit/store.ts';
export type { AccessTokenFormat, ClientGrantType, OAuthClient } from './clients/store.ts';
export { accessTokenFormats, clientGrantTypes } from './clients/store.ts';
export type { ApiKey, ApiKeyKind, Organization, OrganizationConfig } from './organizations/store.ts';
export { apiKeyKinds } from './organizations/store.ts';
export type { Handle, HandleType, Person, PersonRole } from './persons/store.ts';
export { handleTypes, personRoles } from './persons/store.ts';
export type { SigningKey } from './signing-keys/store.ts';
export type { ActClaim, OpaqueToken } from './tokens/store.ts';

/** Where a page starts, decoded from an opaque cursor by the HTTP layer. */
export type PagePosition = { kind: 'first' } | { kind: 'after'; id: string } | { kind: 'before'; id: string } | { kind: 'last' };

export interface PageRequest {
  position: PagePosition;
  limit: number;
}

export interface Page<T> {
  items: T[];
  hasPrevious: boolean;
  hasNext: boolean;
  /** Counted for the first page only. */
  totalCount?: number;
}
