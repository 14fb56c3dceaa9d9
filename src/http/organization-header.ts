import type { FastifyRequest } from 'fastify';
import { hashSecret } from '../crypto/ids.ts';
import { ApiError } from '../errors/api-error.ts';
import type { OrganizationStore } from '../store/organizations/store.ts';
import type { ApiKey, ApiKeyKind, Organization } from '../store/types.ts';

/**
 * The organisation id a request names in Service-OrgID, checked as every organisation-scoped
 * operation checks it (by API key, by a login, by a person's token): present, not empty, and at
 * most 64 characters, before anything is looked up.
 */
export function organizationIdOf(request: FastifyRequest): string {
  const value = request.headers['service-orgid'];
  if (typeof value !== 'string' || value.length === 0) {
    throw new ApiError('INVALID_HEADER', 'header Service-OrgID: is required on organisation-scoped operations');
  }
  if (value.length > 64) throw new ApiError('INVALID_HEADER', 'header Service-OrgID: must be at most 64 characters');
  return value;
}

/** A header's value, or undefined when it is absent or empty. */
export function singleHeader(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

const organizationNotFound = () => new ApiError('ORGANIZATION_NOT_FOUND', 'header Service-OrgID: no organisation has this id');

/**
 * The organisation a login addresses, by Service-OrgID alone: a person logging in holds no API
 * key. An unknown organisation is a 404, as everywhere; it says nothing about its persons.
 */
export async function organizationOf(request: FastifyRequest, store: OrganizationStore): Promise<Organization> {
  const org = await store.getOrganization(organizationIdOf(request));
  if (!org) throw organizationNotFound();
  return org;
}

export interface AddressedOrganization {
  org: Organization;
  /** The key of Service-API-Key when one was sent and is the organisation's; else undefined. */
  key: ApiKey | undefined;
  /** Whether a Service-API-Key header was sent at all (a wrong one is refused by the caller that needs it). */
  apiKeySent: boolean;
}

/**
 * The organisation named by Service-OrgID and, in the same look-up, the key of Service-API-Key
 * if one was sent. Hashing an absent or absurd key still costs one look-up: the organisation's
 * existence is answered (404) before anything about the key, as documented.
 */
export async function addressedOrganization(store: OrganizationStore, request: FastifyRequest): Promise<AddressedOrganization> {
  const orgId = organizationIdOf(request);
  const secret = singleHeader(request, 'service-api-key');
  const found = await store.findOrganizationAndKey(orgId, secret && secret.length <= 128 ? hashSecret(secret) : '');
  if (!found) throw organizationNotFound();
  return { org: found.org, key: found.key, apiKeySent: secret !== undefined };
}

/** The key that was sent, if it is the organisation's and of one of `kinds`: 401 or 403 otherwise. */
export function keyOfKind({ key }: AddressedOrganization, kinds: readonly ApiKeyKind[]): ApiKey {
  if (!key) throw new ApiError('UNAUTHENTICATED', 'header Service-API-Key: is not a valid key of this organisation');
  if (!kinds.includes(key.kind)) {
    throw new ApiError('FORBIDDEN', `header Service-API-Key: an ${key.kind} key may not use this operation (needs ${kinds.join(' or ')})`);
  }
  return key;
}
