import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { apiKeyOperator } from '../audit/admin-events.ts';
import { commonErrors, Envelope, ListEnvelope } from '../http/envelope.ts';
import { requireApiKey, tenantOf } from '../http/org-auth.ts';
import { listResponse, PageQuery, pageRequest } from '../http/pagination.ts';
import type { IdentityConnection } from '../store/connections/store.ts';
import { type ConnectionDeps, connectionNotFound, createConnection, removeConnection, rotateScimToken } from './operations.ts';
import { ConnectionParams, ConnectionView, CreatedConnection, NewConnection, presentConnection, ScimToken } from './schemas.ts';

export interface ConnectionRouteOptions extends ConnectionDeps {
  /** The public base URL, which a scim connection's scim_base_url starts with. */
  issuer: () => string;
}

/** /organizations/connections: identity connections of the organisation; admin key only. */
export function connectionRoutes(deps: ConnectionRouteOptions): FastifyPluginAsyncTypebox {
  const { store, issuer } = deps;
  return async (app) => {
    app.addHook('onRequest', requireApiKey(store, ['admin']));
    const tags = ['connections'];
    const security = [{ orgId: [], apiKey: [] }];
    const present = (c: IdentityConnection) => presentConnection(c, `${issuer()}/scim/v2`);

    app.post(
      '/organizations/connections',
      {
        schema: {
          tags,
          security,
          summary: 'Connect an identity directory (a scim connection returns its scim_token, shown once)',
          body: NewConnection,
          response: { 201: Envelope(CreatedConnection), ...commonErrors },
        },
      },
      async (request, reply) => {
        const { connection, scimToken: token } = await createConnection(deps, tenantOf(request).org.id, request.body, apiKeyOperator(request));
        return reply.code(201).send({ result: { ...present(connection), ...(token ? { scim_token: token } : {}) } });
      },
    );

    app.get(
      '/organizations/connections',
      {
        schema: {
          tags,
          security,
          summary: 'List connections (never their tokens)',
          querystring: PageQuery,
          response: { 200: ListEnvelope(ConnectionView), ...commonErrors },
        },
      },
      async (request) => {
        const page = await store.listConnections(tenantOf(request).org.id, pageRequest('connections', request.query));
        return listResponse('connections', request.query.limit, page, present);
      },
    );

    app.get(
      '/organizations/connections/:connection_id',
      { schema: { tags, security, summary: 'Read a connection', params: ConnectionParams, response: { 200: Envelope(ConnectionView), ...commonErrors } } },
      async (request) => {
        const connection = await store.getConnection(tenantOf(request).org.id, request.params.connection_id);
        if (!connection) throw connectionNotFound();
        return { result: present(connection) };
      },
    );

    app.delete(
      '/organizations/connections/:connection_id',
      {
        schema: {
          tags,
          security,
          summary: 'Delete a connection and every identity it holds',
          params: ConnectionParams,
          response: { 204: Type.Null(), ...commonErrors },
        },
      },
      async (request, reply) => {
        await removeConnection(deps, tenantOf(request).org.id, request.params.connection_id, apiKeyOperator(request));
        return reply.code(204).send(null);
      },
    );

    app.post(
      '/organizations/connections/:connection_id/scim-token',
      {
        schema: {
          tags,
          security,
          summary: "Rotate a scim connection's token (the old one stops working at once)",
          params: ConnectionParams,
          response: { 200: Envelope(ScimToken), ...commonErrors },
        },
      },
      async (request) => {
        const token = await rotateScimToken(deps, tenantOf(request).org.id, request.params.connection_id, apiKeyOperator(request));
        return { result: { scim_token: token } };
      },
    );
  };
}
