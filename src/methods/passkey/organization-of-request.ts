import type { FastifyRequest } from 'fastify';
import { hashSecret } from '../../crypto/ids.ts';
import { ApiError } from '../../errors/api-error.ts';
import { organizationIdOf } from '../../http/organization-header.ts';
import type { OrganizationStore } from '../../store/organizations/store.ts';
import type { ApiKey, Organization } from '../../store/types.ts';

export interface AddressedOrganization {
  org: Organization;
  /** The key of Service-API-Key when one was sent and is the organisation's; else undefined. */
  key: ApiKey | undefined;
  /** Whether a Service-API-Key header was sent at all (a wrong one is refused by the caller that needs it). */
  apiKeySent: boolean;
}

/**
 * The organisation named by Service-OrgID, for registration, which takes either an API key or a
 * person token: one look-up that also finds the key, if one was sent. (Logins, which never carry
 * a key, use ../organization-header.ts.)
 */
export async function organizationOfRequest(store: OrganizationStore, request: FastifyRequest): Promise<AddressedOrganization> {
  const orgId = organizationIdOf(request);
  const secret = singleHeader(request, 'service-api-key');
  const found = await store.findOrganizationAndKey(orgId, secret && secret.length <= 128 ? hashSecret(secret) : '');
  if (!found) throw new ApiError('ORGANIZATION_NOT_FOUND', 'header Service-OrgID: no organisation has this id');
  return { org: found.org, key: found.key, apiKeySent: secret !== undefined };
}

export function singleHeader(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}
