import type { FastifyRequest } from 'fastify';
import { ApiError } from '../errors/api-error.ts';
import { organizationIdOf } from '../http/organization-header.ts';
import type { OrganizationStore } from '../store/organizations/store.ts';
import type { Organization } from '../store/types.ts';

/**
 * The organisation a login addresses, by Service-OrgID alone: a person logging in holds no API
 * key. An unknown organisation is a 404, as everywhere; it says nothing about its persons.
 */
export async function organizationOf(request: FastifyRequest, store: OrganizationStore): Promise<Organization> {
  const org = await store.getOrganization(organizationIdOf(request));
  if (!org) throw new ApiError('ORGANIZATION_NOT_FOUND', 'header Service-OrgID: no organisation has this id');
  return org;
}
