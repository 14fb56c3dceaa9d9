import type { FastifyInstance, FastifyRequest } from 'fastify';
import { adminEventTypes } from '../../audit/admin-events.ts';
import { invalidField } from '../../errors/api-error.ts';
import type { AuditEvent } from '../../store/audit/store.ts';
import { listText } from '../cells.ts';
import { consoleRequest, signedIn } from '../context.ts';
import type { ConsoleDeps } from '../deps.ts';
import { type Html, html } from '../html.ts';
import { renderPage } from '../layout.ts';
import { consolePageRequest, cursorsOf, pager, withQuery } from './paging.ts';

/**
 * The event types the service writes, in alphabetical order (docs/api.md#audit-events;
 * test/console/admin-audit.test.ts checks src for new ones). Administrative changes' types
 * live with their recorder (audit/admin-events.ts).
 */
export const auditEventTypes = [
  ...adminEventTypes,
  'authn.attempt',
  'authn.lockout_pressure',
  'authn.attempts_reset',
  'authn.password_upgraded',
  'connection.created',
  'connection.deleted',
  'connection.scim_token_rotated',
  'credential.created',
  'credential.deleted',
  'credential.recovery_codes_regenerated',
  'person.token_minted',
  'person.invitation_redeemed',
  'scim.user.created',
  'scim.user.deleted',
  'scim.user.patched',
  'scim.user.replaced',
  'token.client_credentials',
  'token.exchange',
  'token.request',
  'verification.attempt',
  'verification.initiated',
  'verification.lookup',
].sort();

const orders = ['newest', 'oldest'] as const;
type Order = (typeof orders)[number];
const VALUE_LIMIT = 80;

/** One value of an event's data, short: the log holds no secret, but a long value would swamp the table. */
function shortValue(value: unknown): string {
  const text = typeof value === 'string' ? value : isStringList(value) ? listText(value) : (JSON.stringify(value) ?? String(value));
  return text.length > VALUE_LIMIT ? `${text.slice(0, VALUE_LIMIT - 1)}…` : text;
}

function isStringList(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((v) => typeof v === 'string');
}

/**
 * Whether a value says nothing: events record a field that does not apply as null (reason on a
 * success, may_act when none was asked), so it is left out. An empty list stays: "roles: none" says something.
 */
function saysNothing(value: unknown): boolean {
  if (value === null || value === undefined || value === '') return true;
  return typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length === 0;
}

/** An event's data as labelled pairs, one a line (operator_email reads "operator email"), without the fields that say nothing. */
function dataList(data: Record<string, unknown>): Html {
  const entries = Object.entries(data).filter(([, value]) => !saysNothing(value));
  if (entries.length === 0) return html``;
  return html`<dl class="event-data">${entries.map(([key, value]) => html`<div><dt>${key.replaceAll('_', ' ')}</dt> <dd>${shortValue(value)}</dd></div>`)}</dl>`;
}

/** A moment to the second, on one line: the column's heading says UTC, the datetime attribute has the exact instant. */
function eventTime(ms: number): Html {
  const iso = new Date(ms).toISOString();
  return html`<time datetime="${iso}">${iso.slice(0, 19).replace('T', ' ')}</time>`;
}

function filterOf(request: FastifyRequest): { type: string | undefined; order: Order } {
  const query = request.query as Record<string, unknown>;
  const type = query.type === undefined || query.type === '' || query.type === 'all' ? undefined : query.type;
  if (type !== undefined && !auditEventTypes.includes(type as string)) {
    throw invalidField('query.type', 'must be all or one of the event types listed');
  }
  const order = query.order === undefined || query.order === '' ? 'newest' : query.order;
  if (!orders.includes(order as Order)) throw invalidField('query.order', 'must be newest or oldest');
  return { type: type as string | undefined, order: order as Order };
}

/**
 * The audit log as GET /audit/events pages it: the same list name and cursors, so a cursor of
 * one filter is refused by another. The API lists oldest first; "newest first" starts from its
 * last page and reads each page backwards.
 */
export function auditRoutes(deps: ConsoleDeps) {
  return async (app: FastifyInstance) => {
    app.get('/console/admin/audit', async (request, reply) => {
      const { org } = signedIn(request, 'admin');
      const { type, order } = filterOf(request);
      const list = `audit:${type ?? '*'}`;
      const asked = consolePageRequest(list, request.query);
      const position = asked.position.kind === 'first' && order === 'newest' ? ({ kind: 'last' } as const) : asked.position;
      const page = await deps.store.listAuditEvents(org.id, type, { ...asked, position });
      const cursors = cursorsOf(list, page);
      const events: AuditEvent[] = order === 'newest' ? [...page.items].reverse() : page.items;
      const [previous, next] = order === 'newest' ? [cursors.next, cursors.previous] : [cursors.previous, cursors.next];
      const href = (cursor: string) => withQuery('/console/admin/audit', { type, order, cursor });
      return renderPage(reply, consoleRequest(request), {
        title: 'Audit log',
        body: html`<p><a href="/console/admin">Administration</a></p>
<form method="get" action="/console/admin/audit" class="filters">
  <div class="field">
    <label for="type">Event type</label>
    <select id="type" name="type">
      <option value="all">all</option>
      ${auditEventTypes.map((t) => html`<option value="${t}" ${t === type && html`selected`}>${t}</option>`)}
    </select>
  </div>
  <div class="field">
    <label for="order">Order</label>
    <select id="order" name="order">
      <option value="newest" ${order === 'newest' && html`selected`}>newest first</option>
      <option value="oldest" ${order === 'oldest' && html`selected`}>oldest first</option>
    </select>
  </div>
  <button type="submit">Show</button>
</form>
${
  events.length === 0
    ? html`<p>No events${type && html` of type ${type}`}.</p>`
    : html`<div class="table-scroll" tabindex="0" role="region" aria-label="Audit events"><table>
  <thead><tr><th scope="col">Time (UTC)</th><th scope="col">Type</th><th scope="col">Details</th></tr></thead>
  <tbody>${events.map((e) => html`<tr><th scope="row" class="audit-time">${eventTime(e.occurredAt)}</th><td>${e.type}</td><td>${dataList(e.data)}</td></tr>`)}</tbody>
</table></div>`
}
${pager(href, previous, next)}`,
      });
    });
  };
}
