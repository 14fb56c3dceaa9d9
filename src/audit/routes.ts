import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { commonErrors, ListEnvelope } from '../http/envelope.ts';
import { requireApiKey, tenantOf } from '../http/org-auth.ts';
import { listResponse, PageQuery, pageRequest } from '../http/pagination.ts';
import type { AuditStore } from '../store/audit/store.ts';
import type { OrganizationStore } from '../store/organizations/store.ts';
import type { AuditEvent } from '../store/types.ts';

const EventView = Type.Object({
  id: Type.String(),
  type: Type.String(),
  occurred_at: Type.String({ format: 'date-time' }),
  data: Type.Record(Type.String(), Type.Unknown()),
});
const AuditQuery = Type.Object(
  { ...PageQuery.properties, type: Type.Optional(Type.String({ minLength: 1, maxLength: 64, pattern: '^[a-z_.]+$', description: 'e.g. token.exchange' })) },
  { additionalProperties: false },
);

function present(event: AuditEvent) {
  return { id: event.id, type: event.type, occurred_at: new Date(event.occurredAt).toISOString(), data: event.data };
}

export interface AuditRouteOptions {
  store: AuditStore & OrganizationStore;
}

/** GET /audit/events: what happened in the organisation, oldest first, optionally of one type. */
export function auditRoutes({ store }: AuditRouteOptions): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.addHook('onRequest', requireApiKey(store, ['admin']));
    app.get(
      '/audit/events',
      {
        schema: {
          tags: ['audit'],
          security: [{ orgId: [], apiKey: [] }],
          summary: 'List audit events',
          querystring: AuditQuery,
          response: { 200: ListEnvelope(EventView), ...commonErrors },
        },
      },
      async (request) => {
        // The type filter is part of the list's identity, so a cursor cannot cross filters.
        const list = `audit:${request.query.type ?? '*'}`;
        const page = await store.listAuditEvents(tenantOf(request).org.id, request.query.type, pageRequest(list, request.query));
        return listResponse(list, request.query.limit, page, present);
      },
    );
  };
}
