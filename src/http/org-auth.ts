import type { FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import { hashSecret } from '../crypto/ids.ts';
import { ApiError } from '../errors/api-error.ts';
import type { OrganizationStore } from '../store/organizations/store.ts';
import type { ApiKey, ApiKeyKind, Organization } from '../store/types.ts';
import { organizationIdOf } from './organization-header.ts';

export interface Tenant {
  org: Organization;
  key: ApiKey;
}

const tenants = new WeakMap<FastifyRequest, Tenant>();

/**
 * Runs on request, before the body is even read: a caller without a key of the organisation
 * named in Service-OrgID learns nothing about the operation and costs no parsing.
 */
export function requireApiKey(store: OrganizationStore, kinds: readonly ApiKeyKind[]): onRequestAsyncHookHandler {
  return async (request) => {
    const orgId = organizationIdOf(request);
    const secret = singleHeader(request, 'service-api-key');
    // Hashing an absent or absurd key still costs one look-up: the organisation's existence
    // is answered (404) before the key's absence (401), as documented.
    const found = await store.findOrganizationAndKey(orgId, secret && secret.length <= 128 ? hashSecret(secret) : '');
    if (!found) throw new ApiError('ORGANIZATION_NOT_FOUND', 'header Service-OrgID: no organisation has this id');
    const { org, key } = found;
    if (!secret) throw new ApiError('UNAUTHENTICATED', 'header Service-API-Key: is required');
    if (!key) throw new ApiError('UNAUTHENTICATED', 'header Service-API-Key: is not a valid key of this organisation');
    if (!kinds.includes(key.kind)) {
      throw new ApiError('FORBIDDEN', `header Service-API-Key: an ${key.kind} key may not use this operation (needs ${kinds.join(' or ')})`);
    }
    tenants.set(request, { org, key });
  };
}

/** The organisation and key that authenticated the request; only on routes behind requireApiKey. */
export function tenantOf(request: FastifyRequest): Tenant {
  const tenant = tenants.get(request);
  if (!tenant) throw new TypeError(`route ${request.routeOptions.url} reads the tenant but is not behind requireApiKey`);
  return tenant;
}

function singleHeader(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}
