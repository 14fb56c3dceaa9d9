import type { FastifyRequest } from 'fastify';
import { ApiError } from '../errors/api-error.ts';

/**
 * The organisation id a request names in Service-OrgID, checked as every organisation-scoped
 * operation checks it (by API key, by a login, by a person's token): present once and at most
 * 64 characters, before anything is looked up.
 */
export function organizationIdOf(request: FastifyRequest): string {
  const value = request.headers['service-orgid'];
  if (typeof value !== 'string' || value.length === 0) {
    throw new ApiError('INVALID_HEADER', 'header Service-OrgID: is required on organisation-scoped operations');
  }
  if (value.length > 64) throw new ApiError('INVALID_HEADER', 'header Service-OrgID: must be at most 64 characters');
  return value;
}
