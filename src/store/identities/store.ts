import type { IdentityFields } from '../../scim-user/user-resource.ts';

/**
 * A SCIM User a provider pushed through a `scim` connection. userName, externalId, email,
 * active and displayName are lifted out of the resource for look-ups and for email
 * verification (by the SCIM model's identityFields, so the two cannot drift); attributes is
 * the resource as sent (less password, id and meta), for GET.
 */
export interface Identity extends IdentityFields {
  id: string;
  orgId: string;
  connectionId: string;
  /**
   * When the identity was first deactivated, null if it never was; never cleared. Durable so that
   * removing `active` from a deactivated user (RFC 7644 lets a provider do so) cannot reactivate it.
   */
  deactivatedAt: number | null;
  attributes: Record<string, unknown>;
  createdAt: number;
  updatedAt: number;
}

/** One equality test of a SCIM filter the store can answer; several are AND-ed. */
export interface IdentityCondition {
  /** userName and email compare case-insensitively (RFC 7643 caseExact false), the others exactly. */
  attribute: 'id' | 'userName' | 'externalId' | 'email';
  value: string;
}

export interface IdentityQuery {
  conditions: readonly IdentityCondition[];
  /** 0-based: SCIM's startIndex minus one. */
  offset: number;
  count: number;
}

/**
 * Identities per connection, ordered by id (creation). userName is unique per connection
 * whatever its case (ConflictError 'identity_user_name').
 */
export interface IdentityStore {
  createIdentity(identity: Identity): Promise<void>;
  getIdentity(orgId: string, connectionId: string, id: string): Promise<Identity | undefined>;
  findIdentities(orgId: string, connectionId: string, query: IdentityQuery): Promise<{ total: number; items: Identity[] }>;
  /**
   * Replaces the identity with `update(current)` atomically, so two PATCHes of one user apply
   * one after the other. undefined for an unknown id; if `update` throws, nothing changes.
   */
  updateIdentity(orgId: string, connectionId: string, id: string, update: (current: Identity) => Identity): Promise<Identity | undefined>;
  deleteIdentity(orgId: string, connectionId: string, id: string): Promise<boolean>;
}

/** The form the case-insensitive columns hold. */
export function caseKey(value: string): string {
  return value.normalize('NFC').toLowerCase();
}
