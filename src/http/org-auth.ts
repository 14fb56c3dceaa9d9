import type { FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import { ApiError } from '../errors/api-error.ts';
import type { OrganizationStore } from '../store/organizations/store.ts';
import type { ApiKey, ApiKeyKind, Organization } from '../store/types.ts';
import { addressedOrganization, keyOfKind } from './organization-header.ts';

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
    const addressed = await addressedOrganization(store, request);
    if (!addressed.apiKeySent) throw new ApiError('UNAUTHENTICATED', 'header Service-API-Key: is required');
    const { org } = addressed;
    const key = keyOfKind(addressed, kinds);
    tenants.set(request, { org, key });
  };
}

/** The organisation and key that authenticated the request; only on routes behind requireApiKey. */
export function tenantOf(request: FastifyRequest): Tenant {
  const tenant = tenants.get(request);
  if (!tenant) throw new TypeError(`route ${request.routeOptions.url} reads the tenant but is not behind requireApiKey`);
  return tenant;
}
