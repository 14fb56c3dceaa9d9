import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { recordDirectoryEvent } from '../connections/audit.ts';
import { newId } from '../crypto/ids.ts';
import { applyPatch, parsePatchBody } from '../scim-user/patch.ts';
import { ScimError } from '../scim-user/scim-error.ts';
import { identityFields, normaliseUser } from '../scim-user/user-resource.ts';
import type { AuditStore } from '../store/audit/store.ts';
import type { IdentityConnection } from '../store/connections/store.ts';
import type { Identity, IdentityStore } from '../store/identities/store.ts';
import { SCIM_CONTENT_TYPE } from './errors.ts';
import { parseListQuery, projectAttributes } from './list-query.ts';
import { presentUser } from './present-user.ts';

export const LIST_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';

export interface UsersDeps {
  store: IdentityStore & AuditStore;
  now: () => number;
  /** The SCIM base URL (`<issuer>/scim/v2`), for meta.location. */
  baseUrl: () => string;
  connectionOf: (request: FastifyRequest) => IdentityConnection;
}

type IdParams = { Params: { id: string } };

/** /Users of RFC 7644 §3, for the connection the bearer token names. */
export function usersRoutes(app: FastifyInstance, { store, now, baseUrl, connectionOf }: UsersDeps): void {
  const hide = { schema: { hide: true } };
  const send = (reply: FastifyReply, status: number, identity: Identity) =>
    reply.code(status).type(SCIM_CONTENT_TYPE).header('location', `${baseUrl()}/Users/${identity.id}`).send(presentUser(identity, baseUrl()));
  const audit = (c: IdentityConnection, type: Parameters<typeof recordDirectoryEvent>[3], identity: Identity, extra: object = {}) =>
    recordDirectoryEvent(store, now, c.orgId, type, {
      connection_id: c.id,
      identity_id: identity.id,
      user_name: identity.userName,
      active: identity.active,
      ...extra,
    });
  const notFound = (id: string) => new ScimError('notFound', `Users/${id}: no user of this connection has this id`);
  // No id holds U+0000, and PostgreSQL cannot even compare one that does: such an id names no user.
  app.addHook('preHandler', async (request) => {
    const { id } = request.params as { id?: string };
    if (id?.includes('\u0000')) throw notFound(id);
  });

  app.post('/Users', hide, async (request, reply) => {
    const c = connectionOf(request);
    const attributes = normaliseUser(request.body);
    const at = now();
    const identity: Identity = {
      id: newId('idn', at),
      orgId: c.orgId,
      connectionId: c.id,
      ...liftedFields(attributes, null, at),
      attributes,
      createdAt: at,
      updatedAt: at,
    };
    await store.createIdentity(identity);
    await audit(c, 'scim.user.created', identity);
    return send(reply, 201, identity);
  });

  app.get<IdParams>('/Users/:id', hide, async (request, reply) => {
    const c = connectionOf(request);
    const identity = await store.getIdentity(c.orgId, c.id, request.params.id);
    if (!identity) throw notFound(request.params.id);
    return send(reply, 200, identity);
  });

  app.get('/Users', hide, async (request, reply) => {
    const c = connectionOf(request);
    const query = parseListQuery(request.query as Record<string, unknown>);
    const { total, items } = await store.findIdentities(c.orgId, c.id, query);
    return reply.type(SCIM_CONTENT_TYPE).send({
      schemas: [LIST_SCHEMA],
      totalResults: total,
      itemsPerPage: items.length,
      startIndex: query.startIndex,
      Resources: items.map((identity) => projectAttributes(presentUser(identity, baseUrl()), query)),
    });
  });

  app.put<IdParams>('/Users/:id', hide, async (request, reply) => {
    const c = connectionOf(request);
    const attributes = normaliseUser(request.body);
    const updated = await store.updateIdentity(c.orgId, c.id, request.params.id, (current) => ({
      ...current,
      ...liftedFields(attributes, current.deactivatedAt, now()),
      attributes,
      updatedAt: now(),
    }));
    if (!updated) throw notFound(request.params.id);
    await audit(c, 'scim.user.replaced', updated);
    return send(reply, 200, updated);
  });

  app.patch<IdParams>('/Users/:id', hide, async (request, reply) => {
    const c = connectionOf(request);
    const operations = parsePatchBody(request.body);
    const updated = await store.updateIdentity(c.orgId, c.id, request.params.id, (current) => {
      const attributes = applyPatch(current.attributes, operations);
      return { ...current, ...liftedFields(attributes, current.deactivatedAt, now()), attributes, updatedAt: now() };
    });
    if (!updated) throw notFound(request.params.id);
    // The paths say what changed; the values are left out (they may be personal data or a password).
    await audit(c, 'scim.user.patched', updated, { operations: operations.map(({ op, path }) => ({ op, path: path ?? null })) });
    return send(reply, 200, updated);
  });

  app.delete<IdParams>('/Users/:id', hide, async (request, reply) => {
    const c = connectionOf(request);
    const identity = await store.getIdentity(c.orgId, c.id, request.params.id);
    if (!identity || !(await store.deleteIdentity(c.orgId, c.id, request.params.id))) throw notFound(request.params.id);
    await audit(c, 'scim.user.deleted', identity);
    return reply.code(204).send();
  });
}

/** The fields lifted for look-ups, and the deactivation carried forward: set the first time the identity reads inactive, never cleared. */
function liftedFields(attributes: Record<string, unknown>, deactivatedAt: number | null, at: number) {
  const fields = identityFields(attributes, deactivatedAt !== null);
  return { ...fields, deactivatedAt: deactivatedAt ?? (fields.active ? null : at) };
}
