import type { FastifyReply } from 'fastify';
import type { IdentityConnection } from '../../store/connections/store.ts';
import type { Identity } from '../../store/identities/store.ts';
import { timestamp } from '../cells.ts';
import type { ConsoleRequest } from '../context.ts';
import { type Html, html } from '../html.ts';
import { csrfField, errorSummary, renderPage } from '../layout.ts';
import { ONE_TIME_WARNING, oneTimeSecret } from './one-time-secret.ts';
import { type Cursors, pager, withQuery } from './paging.ts';

export interface NewConnectionForm {
  name: string;
  type: string;
  baseUrl: string;
}

export const emptyConnectionForm: NewConnectionForm = { name: '', type: 'scim', baseUrl: '' };

const typeText: Record<string, string> = {
  scim: 'scim (the provider pushes users here)',
  scim_pull: 'scim_pull (read from the provider)',
};

interface PageOptions {
  errors?: string[];
  status?: number;
  notice?: string | undefined;
}

/** The organisation's connections, a page at a time, and the form that connects one. The bearer token typed is never shown back. */
export function connectionsPage(
  reply: FastifyReply,
  ctx: ConsoleRequest,
  list: { connections: IdentityConnection[]; cursors: Cursors },
  form: NewConnectionForm,
  options: PageOptions = {},
) {
  const href = (cursor: string) => withQuery('/console/admin/connections', { cursor });
  const typeRadio = (type: 'scim' | 'scim_pull') =>
    html`<div><input type="radio" id="type-${type}" name="type" value="${type}" ${form.type === type && html`checked`}> <label for="type-${type}">${typeText[type]}</label></div>`;
  return renderPage(reply, ctx, {
    title: 'Identity connections',
    status: options.status ?? 200,
    notice: options.notice,
    body: html`<p><a href="/console/admin">Administration</a></p>
<h2>Connections</h2>
${
  list.connections.length === 0
    ? html`<p>No identity connections yet.</p>`
    : html`<div class="table-scroll" tabindex="0" role="region" aria-label="Identity connections"><table>
  <thead><tr><th scope="col">Name</th><th scope="col">Type</th><th scope="col">Created</th></tr></thead>
  <tbody>${list.connections.map(
    (c) => html`<tr><th scope="row"><a href="/console/admin/connections/${c.id}">${c.name}</a></th><td>${c.type}</td><td>${timestamp(c.createdAt)}</td></tr>`,
  )}</tbody>
</table></div>`
}
${pager(href, list.cursors.previous, list.cursors.next)}
<h2 id="create">Connect a directory</h2>
${errorSummary(options.errors ?? [])}
<form method="post" action="/console/admin/connections" class="stack">
  ${csrfField(ctx)}
  <div class="field">
    <label for="name">Name</label>
    <input id="name" name="name" value="${form.name}" required maxlength="100" autocomplete="off" aria-describedby="name-hint">
    <p class="hint" id="name-hint">Unique in the organisation, for example the provider's name.</p>
  </div>
  <fieldset>
    <legend>Type</legend>
    ${typeRadio('scim')}
    ${typeRadio('scim_pull')}
  </fieldset>
  <fieldset>
    <legend>For scim_pull only</legend>
    <div class="field">
      <label for="base_url">Provider's SCIM base URL</label>
      <input id="base_url" name="base_url" type="url" value="${form.baseUrl}" autocomplete="off" aria-describedby="base-url-hint">
      <p class="hint" id="base-url-hint">https, for example https://example.okta.com/scim/v2</p>
    </div>
    <div class="field">
      <label for="bearer_token">Bearer token</label>
      <input id="bearer_token" name="bearer_token" type="password" autocomplete="off" aria-describedby="bearer-hint">
      <p class="hint" id="bearer-hint">Sent to the provider as Authorization: Bearer. Kept sealed; never shown again.</p>
    </div>
  </fieldset>
  <button type="submit">Create connection</button>
</form>`,
  });
}

/** A scim connection's token, shown in the answer to the POST that made it and never again. */
export function scimTokenPage(
  reply: FastifyReply,
  ctx: ConsoleRequest,
  connection: IdentityConnection,
  scimUrl: string,
  token: string,
  what: 'created' | 'rotated',
) {
  return renderPage(reply, ctx, {
    title: what === 'created' ? 'Connection created' : 'SCIM token replaced',
    body: html`<p>${what === 'created' ? html`The connection ${connection.name} is created.` : html`The old token of ${connection.name} no longer works.`}
Give the identity provider this URL and token.</p>
${ONE_TIME_WARNING}
<dl class="facts">
  <dt>SCIM base URL (Tenant URL)</dt><dd><code>${scimUrl}</code></dd>
  ${oneTimeSecret('scim-token', 'SCIM token', token)}
</dl>
<p><a href="/console/admin/connections/${connection.id}">Go to the connection</a></p>`,
  });
}

export interface IdentityList {
  items: Identity[];
  total: number;
  page: number;
  pages: number;
}

function identitiesSection(connection: IdentityConnection, list: IdentityList | undefined): Html {
  if (!list) {
    return html`<p>The identities of a scim_pull connection live in the provider: the service reads them from ${connection.baseUrl ?? ''} when a verifier looks someone up.</p>`;
  }
  if (list.total === 0) return html`<p>The provider has not provisioned any identity yet.</p>`;
  const href = (page: string) => withQuery(`/console/admin/connections/${connection.id}`, { page });
  return html`<p>${list.total} ${list.total === 1 ? 'identity' : 'identities'}; page ${list.page} of ${list.pages}.</p>
<div class="table-scroll" tabindex="0" role="region" aria-label="Identities"><table>
  <thead><tr><th scope="col">userName</th><th scope="col">Display name</th><th scope="col">Email</th><th scope="col">Active</th></tr></thead>
  <tbody>${list.items.map(
    (i) => html`<tr><th scope="row">${i.userName}</th><td>${i.displayName ?? ''}</td><td>${i.email ?? ''}</td><td>${i.active ? 'yes' : 'no'}</td></tr>`,
  )}</tbody>
</table></div>
${pager(href, list.page > 1 ? String(list.page - 1) : undefined, list.page < list.pages ? String(list.page + 1) : undefined)}`;
}

/** One connection: where it is, its identities, and rotating its token or deleting it. */
export function connectionPage(
  reply: FastifyReply,
  ctx: ConsoleRequest,
  connection: IdentityConnection,
  scimUrl: string,
  identities: IdentityList | undefined,
  notice?: string,
) {
  return renderPage(reply, ctx, {
    title: connection.name,
    notice,
    body: html`<p><a href="/console/admin/connections">All connections</a></p>
<dl class="facts">
  <dt>Type</dt><dd>${typeText[connection.type] ?? connection.type}</dd>
  ${connection.type === 'scim' ? html`<dt>SCIM base URL (Tenant URL)</dt><dd><code>${scimUrl}</code></dd>` : html`<dt>Provider's SCIM base URL</dt><dd><code>${connection.baseUrl ?? ''}</code></dd>`}
  <dt>Id</dt><dd><code>${connection.id}</code></dd>
  <dt>Created</dt><dd>${timestamp(connection.createdAt)}</dd>
</dl>
<h2>Identities</h2>
${identitiesSection(connection, identities)}
${
  connection.type === 'scim' &&
  html`<h2>SCIM token</h2>
<form method="post" action="/console/admin/connections/${connection.id}/scim-token" class="stack" data-confirm="Replace the SCIM token? The provider stops syncing until it is given the new one.">
  ${csrfField(ctx)}
  <p>Makes a new token, shown once; the old one stops working at once.</p>
  <button type="submit" class="secondary">Rotate SCIM token</button>
</form>`
}
<h2>Delete</h2>
<form method="post" action="/console/admin/connections/${connection.id}/delete" class="stack" data-confirm="Delete this connection and every identity it holds? This cannot be undone.">
  ${csrfField(ctx)}
  <p>Deletes the connection and every identity it holds; verifications through it stop.</p>
  <button type="submit" class="danger">Delete this connection</button>
</form>`,
  });
}
