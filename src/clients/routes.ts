import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { apiKeyOperator } from '../audit/admin-events.ts';
import { ApiError } from '../errors/api-error.ts';
import { commonErrors, Envelope, ListEnvelope } from '../http/envelope.ts';
import { requireApiKey, tenantOf } from '../http/org-auth.ts';
import { listResponse, PageQuery, pageRequest } from '../http/pagination.ts';
import type { ClientStore } from '../store/clients/store.ts';
import type { OrganizationStore } from '../store/organizations/store.ts';
import type { TransactionalStore } from '../store/store.ts';
import { createOAuthClient, deleteOAuthClient, presentClient, rotateOAuthClientSecret, switchClientAuthentication } from './operations.ts';
import { ClientAuthenticationChange, ClientParams, ClientSecret, ClientView, NewClient, RegisteredClient } from './schemas.ts';

export interface ClientRouteOptions {
  store: ClientStore & OrganizationStore & TransactionalStore;
  /** TESSERA_DEV: a jwks_uri may then be loopback http. */
  dev: boolean;
  /** The app's clock, which stamps what is created and the audit events. */
  now: () => number;
}

/** /oauth2/clients: the organisation's OAuth2 clients; admin key only. */
export function oauthClientRoutes({ store, dev, now }: ClientRouteOptions): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.addHook('onRequest', requireApiKey(store, ['admin']));
    const tags = ['oauth2 clients'];
    const security = [{ orgId: [], apiKey: [] }];
    const notFound = () => new ApiError('NOT_FOUND', 'path.client_id: no OAuth2 client of this organisation has this id');

    app.post(
      '/oauth2/clients',
      {
        schema: {
          tags,
          security,
          summary: "Register an OAuth2 client (a secret client's secret shown once)",
          body: NewClient,
          response: { 201: Envelope(RegisteredClient), ...commonErrors },
        },
      },
      async (request, reply) => {
        const { org } = tenantOf(request);
        const { client, secret } = await createOAuthClient(store, org.id, request.body, apiKeyOperator(request), now(), { dev });
        return reply.code(201).send({ result: { ...presentClient(client), ...(secret === undefined ? {} : { client_secret: secret }) } });
      },
    );

    app.get(
      '/oauth2/clients',
      {
        schema: { tags, security, summary: 'List OAuth2 clients', querystring: PageQuery, response: { 200: ListEnvelope(ClientView), ...commonErrors } },
      },
      async (request) => {
        const page = await store.listClients(tenantOf(request).org.id, pageRequest('oauth2-clients', request.query));
        return listResponse('oauth2-clients', request.query.limit, page, presentClient);
      },
    );

    app.get(
      '/oauth2/clients/:client_id',
      {
        schema: { tags, security, summary: 'Read an OAuth2 client', params: ClientParams, response: { 200: Envelope(ClientView), ...commonErrors } },
      },
      async (request) => {
        const client = await store.getClient(tenantOf(request).org.id, request.params.client_id);
        if (!client) throw notFound();
        return { result: presentClient(client) };
      },
    );

    app.patch(
      '/oauth2/clients/:client_id',
      {
        schema: {
          tags,
          security,
          summary: 'Switch how the client authenticates (a keyed method drops its secret; a secret method after a keyed one gets a new secret, shown once)',
          params: ClientParams,
          body: ClientAuthenticationChange,
          response: { 200: Envelope(RegisteredClient), ...commonErrors },
        },
      },
      async (request) => {
        const { org } = tenantOf(request);
        const changed = await switchClientAuthentication(store, org.id, request.params.client_id, request.body, apiKeyOperator(request), now(), { dev });
        if (!changed) throw notFound();
        return { result: { ...presentClient(changed.client), ...(changed.secret === undefined ? {} : { client_secret: changed.secret }) } };
      },
    );

    app.delete(
      '/oauth2/clients/:client_id',
      {
        schema: { tags, security, summary: 'Delete an OAuth2 client', params: ClientParams, response: { 204: Type.Null(), ...commonErrors } },
      },
      async (request, reply) => {
        // Revokes the client's opaque tokens in the same transaction (see ClientStore.deleteClient).
        const { org } = tenantOf(request);
        if (!(await deleteOAuthClient(store, org.id, request.params.client_id, apiKeyOperator(request), now()))) throw notFound();
        return reply.code(204).send(null);
      },
    );

    app.post(
      '/oauth2/clients/:client_id/secret',
      {
        schema: {
          tags,
          security,
          summary: 'Rotate the client secret (the old one stops working at once)',
          params: ClientParams,
          response: { 200: Envelope(Type.Intersect([Type.Object({ client_id: Type.String() }), ClientSecret])), ...commonErrors },
        },
      },
      async (request) => {
        const { org } = tenantOf(request);
        const secret = await rotateOAuthClientSecret(store, org.id, request.params.client_id, apiKeyOperator(request), now());
        if (secret === undefined) throw notFound();
        return { result: { client_id: request.params.client_id, client_secret: secret } };
      },
    );
  };
}
