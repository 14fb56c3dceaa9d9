import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Static } from 'typebox';
import { connectionNotFound, createConnection, removeConnection, rotateScimToken } from '../../connections/operations.ts';
import { NewConnection } from '../../connections/schemas.ts';
import { invalidField } from '../../errors/api-error.ts';
import { SCIM_PREFIX } from '../../scim/plugin.ts';
import type { IdentityConnection } from '../../store/connections/store.ts';
import { consoleRequest, seeOther, signedIn } from '../context.ts';
import type { ConsoleDeps } from '../deps.ts';
import { field } from '../form-body.ts';
import { checkBody, formRefusalOf } from '../form-refusals.ts';
import { noticeFrom } from '../notice.ts';
import { connectionPage, connectionsPage, emptyConnectionForm, type IdentityList, type NewConnectionForm, scimTokenPage } from './connection-pages.ts';
import { consolePageRequest, cursorsOf } from './paging.ts';
import { consoleOperator } from './persons.ts';

const IDENTITIES_PER_PAGE = 25;
const notices: Record<string, string> = { created: 'Connection created.', deleted: 'Connection deleted, with its identities.' };

const noticeOf = (request: FastifyRequest) => noticeFrom(notices, request.query);
const connectionIdOf = (request: FastifyRequest) => (request.params as { connection_id: string }).connection_id;

/** Which page of identities a connection page shows: `?page=` from 1 (400 naming `page` otherwise). */
function identityPageOf(request: FastifyRequest): number {
  const raw = (request.query as Record<string, unknown>).page;
  if (raw === undefined || raw === '') return 1;
  if (typeof raw !== 'string' || !/^[1-9]\d{0,5}$/.test(raw)) throw invalidField('query.page', 'must be a whole number from 1 to 999999');
  return Number(raw);
}

/** Administration of identity connections: the API's /organizations/connections (the same functions), as pages. */
export function connectionRoutes(deps: ConsoleDeps) {
  const { store } = deps;
  const scimUrl = () => `${deps.issuer()}${SCIM_PREFIX}`;
  const listOf = async (orgId: string, query: unknown) => {
    const page = await store.listConnections(orgId, consolePageRequest('connections', query));
    return { connections: page.items, cursors: cursorsOf('connections', page) };
  };
  const connectionOf = async (orgId: string, id: string): Promise<IdentityConnection> => {
    const connection = await store.getConnection(orgId, id);
    if (!connection) throw connectionNotFound();
    return connection;
  };

  return async (app: FastifyInstance) => {
    app.get('/console/admin/connections', async (request, reply) => {
      const { org } = signedIn(request, 'admin');
      return connectionsPage(reply, consoleRequest(request), await listOf(org.id, request.query), emptyConnectionForm, { notice: noticeOf(request) });
    });

    app.post('/console/admin/connections', async (request, reply) => {
      const who = signedIn(request, 'admin');
      const { org } = who;
      const form: NewConnectionForm = { name: field(request.body, 'name'), type: field(request.body, 'type'), baseUrl: field(request.body, 'base_url').trim() };
      const bearerToken = field(request.body, 'bearer_token');
      // A form sends its empty inputs; the API's body has no such field at all.
      const body = {
        name: form.name,
        type: form.type,
        ...(form.baseUrl ? { base_url: form.baseUrl } : {}),
        ...(bearerToken ? { bearer_token: bearerToken } : {}),
      };
      try {
        checkBody(NewConnection, body);
        const { connection, scimToken } = await createConnection(deps.connections, org.id, body as Static<typeof NewConnection>, consoleOperator(who));
        if (scimToken) return scimTokenPage(reply, consoleRequest(request), connection, scimUrl(), scimToken, 'created');
        return seeOther(reply, `/console/admin/connections/${connection.id}?notice=created`);
      } catch (error) {
        const refusal = formRefusalOf(error);
        if (!refusal) throw error;
        return connectionsPage(reply, consoleRequest(request), await listOf(org.id, {}), form, { errors: refusal.messages, status: refusal.status });
      }
    });

    app.get('/console/admin/connections/:connection_id', async (request, reply) => {
      const { org } = signedIn(request, 'admin');
      const connection = await connectionOf(org.id, connectionIdOf(request));
      let identities: IdentityList | undefined;
      if (connection.type === 'scim') {
        const page = identityPageOf(request);
        const found = await store.findIdentities(org.id, connection.id, {
          conditions: [],
          offset: (page - 1) * IDENTITIES_PER_PAGE,
          count: IDENTITIES_PER_PAGE,
        });
        identities = { ...found, page, pages: Math.max(1, Math.ceil(found.total / IDENTITIES_PER_PAGE)) };
      }
      return connectionPage(reply, consoleRequest(request), connection, scimUrl(), identities, noticeOf(request));
    });

    app.post('/console/admin/connections/:connection_id/scim-token', async (request, reply) => {
      const who = signedIn(request, 'admin');
      const { org } = who;
      const connection = await connectionOf(org.id, connectionIdOf(request));
      const token = await rotateScimToken(deps.connections, org.id, connection.id, consoleOperator(who));
      return scimTokenPage(reply, consoleRequest(request), connection, scimUrl(), token, 'rotated');
    });

    app.post('/console/admin/connections/:connection_id/delete', async (request, reply) => {
      const who = signedIn(request, 'admin');
      await removeConnection(deps.connections, who.org.id, connectionIdOf(request), consoleOperator(who));
      return seeOther(reply, '/console/admin/connections?notice=deleted');
    });
  };
}
