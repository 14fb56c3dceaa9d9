import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { apiKeyOperator } from '../audit/admin-events.ts';
import { ApiError } from '../errors/api-error.ts';
import { commonErrors, Envelope, ListEnvelope } from '../http/envelope.ts';
import { requireApiKey, tenantOf } from '../http/org-auth.ts';
import { listResponse, PageQuery, pageRequest } from '../http/pagination.ts';
import type { OrganizationStore } from '../store/organizations/store.ts';
import type { TransactionalStore } from '../store/store.ts';
import { changeOrganizationConfig, createApiKey, presentKey, revokeApiKey } from './operations.ts';
import { ApiKeyView, ConfigPatch, ConfigView, CreatedApiKey, NewApiKey } from './schemas.ts';

export interface OrganizationRouteOptions {
  store: OrganizationStore & TransactionalStore;
  /** TESSERA_DEV: loopback http is then allowed for svid_jwks_urls. */
  dev: boolean;
  /** The app's clock, which stamps what is created and the audit events. */
  now: () => number;
}

/** Organisation-level operations; all need an admin key of the organisation. */
export function organizationRoutes({ store, dev, now }: OrganizationRouteOptions): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.addHook('onRequest', requireApiKey(store, ['admin']));
    const tags = ['organizations'];
    const security = [{ orgId: [], apiKey: [] }];

    app.post(
      '/organizations/api-keys',
      {
        schema: { tags, security, summary: 'Create an API key (shown once)', body: NewApiKey, response: { 201: Envelope(CreatedApiKey), ...commonErrors } },
      },
      async (request, reply) => {
        const { org } = tenantOf(request);
        const { key, secret } = await createApiKey(store, org.id, request.body, apiKeyOperator(request), now());
        return reply.code(201).send({ result: { ...presentKey(key), api_key: secret } });
      },
    );

    app.get(
      '/organizations/api-keys',
      {
        schema: {
          tags,
          security,
          summary: 'List API keys (never their secrets)',
          querystring: PageQuery,
          response: { 200: ListEnvelope(ApiKeyView), ...commonErrors },
        },
      },
      async (request) => {
        const page = await store.listApiKeys(tenantOf(request).org.id, pageRequest('api-keys', request.query));
        return listResponse('api-keys', request.query.limit, page, presentKey);
      },
    );

    app.delete(
      '/organizations/api-keys/:key_id',
      {
        schema: {
          tags,
          security,
          summary: 'Revoke an API key',
          params: Type.Object({ key_id: Type.String({ minLength: 1, maxLength: 64 }) }),
          response: { 204: Type.Null(), ...commonErrors },
        },
      },
      async (request, reply) => {
        const { org, key } = tenantOf(request);
        // The caller keeps its own key; revokeApiKey also refuses the last admin key, which
        // matters when the console revokes one at the same time.
        if (request.params.key_id === key.id) throw new ApiError('CONFLICT', 'path.key_id: is the key making this request; revoke it with another admin key');
        await revokeApiKey(store, { orgId: org.id, keyId: request.params.key_id, field: 'path.key_id' }, apiKeyOperator(request), now());
        return reply.code(204).send(null);
      },
    );

    app.get(
      '/organizations/config',
      {
        schema: { tags, security, summary: "Read the organisation's configuration", response: { 200: Envelope(ConfigView), ...commonErrors } },
      },
      async (request) => ({ result: tenantOf(request).org.config }),
    );

    app.patch(
      '/organizations/config',
      {
        schema: {
          tags,
          security,
          summary: 'Change configuration fields (each given field replaces its value)',
          body: ConfigPatch,
          response: { 200: Envelope(ConfigView), ...commonErrors },
        },
      },
      async (request) => {
        const { org } = tenantOf(request);
        const updated = await changeOrganizationConfig(store, org.id, request.body, { dev }, apiKeyOperator(request), now());
        if (!updated) throw new ApiError('ORGANIZATION_NOT_FOUND', 'header Service-OrgID: the organisation was deleted');
        return { result: updated.config };
      },
    );
  };
}
