import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../errors/api-error.ts';
import type { ApiErrorCode } from '../errors/catalogue.ts';
import { requireApiKey, tenantOf } from '../http/org-auth.ts';
import type { ClientStore } from '../store/clients/store.ts';
import type { OrganizationStore } from '../store/organizations/store.ts';
import type { OAuthClient } from '../store/types.ts';
import { authenticateClient, type ClientAssertionContext } from './client-auth.ts';
import { oauthError } from './errors.ts';
import type { OAuthParams } from './form.ts';
import type { OwnToken } from './tokens/reader.ts';

/** Who asks to introspect: a client, or an organisation's admin API key. */
export type Introspector = { kind: 'client'; orgId: string; client: OAuthClient } | { kind: 'admin-key'; orgId: string };

/** The JSON API's refusals of a key, each of which is a failed authentication here. */
const KEY_REFUSALS: readonly ApiErrorCode[] = ['INVALID_HEADER', 'ORGANIZATION_NOT_FOUND', 'UNAUTHENTICATED', 'FORBIDDEN'];

/**
 * Authenticates an introspection request: client credentials as at the token endpoint, or
 * Service-OrgID + Service-API-Key of an admin key, checked by the JSON API's own look-up. Any
 * refusal of the key (unknown organisation, wrong key, an integration key) is 401
 * invalid_client, as a request without credentials is.
 */
export function introspectorAuthentication(
  store: OrganizationStore & ClientStore,
  assertions: ClientAssertionContext,
): (app: FastifyInstance, request: FastifyRequest, reply: FastifyReply, params: OAuthParams) => Promise<Introspector> {
  const checkAdminKey = requireApiKey(store, ['admin']);
  return async (app, request, reply, params) => {
    if (request.headers['service-api-key'] === undefined) {
      const authenticated = await authenticateClient(store, request.headers.authorization, params, assertions);
      if (!authenticated) throw oauthError('invalid_client', 'this endpoint requires client authentication or an organisation admin API key');
      return { kind: 'client', orgId: authenticated.client.orgId, client: authenticated.client };
    }
    if (
      request.headers.authorization !== undefined ||
      ['client_id', 'client_secret', 'client_assertion', 'client_assertion_type'].some((name) => params.has(name))
    ) {
      throw oauthError('invalid_request', 'use one authentication method: client credentials or Service-API-Key, not both');
    }
    try {
      await checkAdminKey.call(app, request, reply);
    } catch (error) {
      if (error instanceof ApiError && KEY_REFUSALS.includes(error.code)) throw oauthError('invalid_client', error.message);
      throw error;
    }
    return { kind: 'admin-key', orgId: tenantOf(request).org.id };
  };
}

/**
 * RFC 7662 §2.1 leaves to the server which tokens a caller may learn about. An admin key sees
 * every token of its organisation; a client sees the tokens issued to it or naming it as the
 * subject, and those exchanged through it (it is the newest actor). Anything else answers as
 * an inactive token would, so a client cannot tell another's token from garbage.
 */
export function mayIntrospect(who: Introspector, token: OwnToken): boolean {
  if (token.orgId !== who.orgId) return false;
  if (who.kind === 'admin-key') return true;
  const id = who.client.id;
  return token.clientId === id || token.subject === id || token.act?.sub === id;
}
