import type { FastifyRequest } from 'fastify';
import { ApiError } from '../errors/api-error.ts';
import type { OrganizationStore } from '../store/organizations/store.ts';
import type { Organization } from '../store/types.ts';

/**
 * The organisation a login addresses, by Service-OrgID alone: a person logging in holds no API
 * key. An unknown organisation is a 404, as everywhere; it says nothing about its persons.
 */
export async function organizationOf(request: FastifyRequest, store: OrganizationStore): Promise<Organization> {
  const value = request.headers['service-orgid'];
  if (typeof value !== 'string' || value.length === 0)
    throw new ApiError('INVALID_HEADER', 'header Service-OrgID: is required on organisation-scoped operations');
  if (value.length > 64) throw new ApiError('INVALID_HEADER', 'header Service-OrgID: must be at most 64 characters');
  const org = await store.getOrganization(value);
  if (!org) throw new ApiError('ORGANIZATION_NOT_FOUND', 'header Service-OrgID: no organisation has this id');
  return org;
}
