import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { type Static, Type } from 'typebox';
import { apiKeyOperator, type Operator, operatorFields } from '../audit/admin-events.ts';
import { hashSecret, newId, newSecret } from '../crypto/ids.ts';
import type { SecretBox } from '../crypto/secret-box.ts';
import { ApiError, invalidField } from '../errors/api-error.ts';
import { commonErrors, Envelope, ListEnvelope } from '../http/envelope.ts';
import { requireApiKey, tenantOf } from '../http/org-auth.ts';
import { listResponse, PageQuery, pageRequest } from '../http/pagination.ts';
import type { AuditStore } from '../store/audit/store.ts';
import type { ConnectionStore, IdentityConnection } from '../store/connections/store.ts';
import type { OrganizationStore } from '../store/organizations/store.ts';
import type { TransactionalStore } from '../store/store.ts';
import { hostProblem } from './address-policy.ts';
import { recordDirectoryEvent } from './audit.ts';
import { baseUrlProblem, ConnectionParams, ConnectionView, CreatedConnection, NewConnection, presentConnection, ScimToken } from './schemas.ts';

export interface ConnectionRoutesDeps {
  store: ConnectionStore & OrganizationStore & AuditStore & TransactionalStore;
  /** Seals scim_pull bearer tokens (connections/sealing.ts). */
  box: SecretBox;
  issuer: () => string;
  dev: boolean;
  now: () => number;
}

export const connectionNotFound = () => new ApiError('NOT_FOUND', 'path.connection_id: no connection of this organisation has this id');

/**
 * Connects a directory: the rules JSON Schema cannot say (which fields go with which type, where
 * base_url may point), then the connection and its audit event. A scim connection's token is
 * returned here only; the store keeps its hash.
 */
export async function createConnection(
  { store, box, dev, now }: ConnectionRoutesDeps,
  orgId: string,
  { name, type, base_url, bearer_token }: Static<typeof NewConnection>,
  operator: Operator,
): Promise<{ connection: IdentityConnection; scimToken: string | undefined }> {
  if (type === 'scim') {
    if (base_url !== undefined) throw invalidField('body.base_url', 'is only for type scim_pull');
    if (bearer_token !== undefined) throw invalidField('body.bearer_token', 'is only for type scim_pull');
  } else {
    if (base_url === undefined) throw invalidField('body.base_url', 'is required for type scim_pull');
    if (bearer_token === undefined) throw invalidField('body.bearer_token', 'is required for type scim_pull');
    const problem = baseUrlProblem(base_url, dev) ?? (await hostProblem(new URL(base_url), { allowLoopback: dev }));
    if (problem) throw invalidField('body.base_url', problem);
  }
  const token = type === 'scim' ? newSecret('tscim') : undefined;
  const at = now();
  const connection: IdentityConnection = {
    id: newId('con', at),
    orgId,
    name,
    type,
    tokenHash: token ? hashSecret(token) : null,
    // Stored without a trailing slash, so `${baseUrl}/Users` is always one slash.
    baseUrl: base_url?.replace(/\/+$/, '') ?? null,
    sealedBearerToken: bearer_token ? box.seal(bearer_token) : null,
    createdAt: at,
  };
  await store.inTransaction(async (tx) => {
    await tx.createConnection(connection);
    await recordDirectoryEvent(tx, now, orgId, 'connection.created', { connection_id: connection.id, name, type, ...operatorFields(operator) });
  });
  return { connection, scimToken: token };
}

/** Gives a scim connection a new token, returned here only: the old one stops working at once. */
export async function rotateScimToken({ store, now }: ConnectionRoutesDeps, orgId: string, connectionId: string, operator: Operator): Promise<string> {
  const connection = await store.getConnection(orgId, connectionId);
  if (!connection) throw connectionNotFound();
  if (connection.type !== 'scim')
    throw new ApiError('CONFLICT', 'path.connection_id: a scim_pull connection has no scim_token; recreate it to change its bearer_token');
  const token = newSecret('tscim');
  await store.inTransaction(async (tx) => {
    if (!(await tx.replaceConnectionToken(orgId, connection.id, hashSecret(token)))) throw connectionNotFound();
    await recordDirectoryEvent(tx, now, orgId, 'connection.scim_token_rotated', { connection_id: connection.id, ...operatorFields(operator) });
  });
  return token;
}

/** Deletes a connection with every identity it holds, and says so in the audit log. */
export async function removeConnection({ store, now }: ConnectionRoutesDeps, orgId: string, connectionId: string, operator: Operator): Promise<void> {
  await store.inTransaction(async (tx) => {
    if (!(await tx.deleteConnection(orgId, connectionId))) throw connectionNotFound();
    await recordDirectoryEvent(tx, now, orgId, 'connection.deleted', { connection_id: connectionId, ...operatorFields(operator) });
  });
}

/** /organizations/connections: identity connections of the organisation; admin key only. */
export function connectionRoutes(deps: ConnectionRoutesDeps): FastifyPluginAsyncTypebox {
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
