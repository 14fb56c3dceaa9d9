/**
 * The records of every module store, and pagination, under one import for the features that
 * handle several of them. Each record is declared by its module's store.ts, pagination by
 * page.ts; a new module store declares its records there too and need not add them here.
 * Nothing under src/store/ imports this file: a module store that did would import itself
 * back through it.
 */

export type { AuditEvent } from './audit/store.ts';
export type { AccessTokenFormat, ClientGrantType, OAuthClient } from './clients/store.ts';
export { accessTokenFormats, clientGrantTypes } from './clients/store.ts';
export type { ApiKey, ApiKeyKind, Organization, OrganizationConfig } from './organizations/store.ts';
export { apiKeyKinds } from './organizations/store.ts';
export type { Page, PagePosition, PageRequest } from './page.ts';
export type { Handle, HandleType, Person, PersonRole } from './persons/store.ts';
export { handleTypes, personRoles } from './persons/store.ts';
export type { SigningKey } from './signing-keys/store.ts';
export type { ActClaim, OpaqueToken } from './tokens/store.ts';
