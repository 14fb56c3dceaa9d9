import type { FastifyReply } from 'fastify';
import { type ApiKey, type ApiKeyKind, apiKeyKinds, type Organization } from '../../store/types.ts';
import { timestamp } from '../cells.ts';
import type { ConsoleRequest } from '../context.ts';
import { type Html, html } from '../html.ts';
import { csrfField, errorSummary, renderPage } from '../layout.ts';
import { ONE_TIME_WARNING, oneTimeSecret } from './one-time-secret.ts';
import { type Cursors, pager, withQuery } from './paging.ts';

export interface ApiKeyForm {
  name: string;
  kind: string;
}

export const emptyApiKeyForm: ApiKeyForm = { name: '', kind: 'integration' };

const kindHints: Record<ApiKeyKind, string> = {
  admin: 'manages the organisation through the API: persons, clients, keys, settings',
  integration: 'may only call /integrations/* (email verification from another system)',
};

export interface ApiKeyList {
  keys: ApiKey[];
  cursors: Cursors;
  total: number | undefined;
}

function actions(ctx: ConsoleRequest, key: ApiKey): Html {
  return html`<form method="post" action="/console/admin/api-keys/${key.id}/rotate" class="inline"
    data-confirm="Rotate the key ${key.name}? A new secret is shown once and the current one stops working at once.">
    ${csrfField(ctx)}<button type="submit" class="secondary">Rotate<span class="visually-hidden"> ${key.name}</span></button>
  </form>
  <form method="post" action="/console/admin/api-keys/${key.id}/revoke" class="inline"
    data-confirm="Revoke the key ${key.name}? Whatever uses it is refused from now on. This cannot be undone.">
    ${csrfField(ctx)}<button type="submit" class="danger">Revoke<span class="visually-hidden"> ${key.name}</span></button>
  </form>`;
}

/** The organisation's API keys (never their secrets), a page at a time, and the form that creates one; `keyErrors` refuse a key's action. */
export function apiKeysPage(
  reply: FastifyReply,
  ctx: ConsoleRequest,
  list: ApiKeyList,
  form: ApiKeyForm,
  options: { errors?: string[]; keyErrors?: string[]; status?: number; notice?: string | undefined } = {},
) {
  const href = (cursor: string) => withQuery('/console/admin/api-keys', { cursor });
  return renderPage(reply, ctx, {
    title: 'API keys',
    status: options.status ?? 200,
    notice: options.notice,
    body: html`<p><a href="/console/admin">Administration</a></p>
<h2>Keys of the organisation</h2>
${errorSummary(options.keyErrors ?? [])}
<p class="hint" id="rotation-hint">Rotate replaces a key by a new one with the same name and kind: its secret is shown once,
and the old secret stops working at the same moment (both change in one step, so the organisation is never without the key).
Put the new secret wherever the key is used right away. The organisation's last admin key cannot be revoked: create another admin key first.</p>
${list.total !== undefined && html`<p>${list.total} ${list.total === 1 ? 'key' : 'keys'} in all.</p>`}
<div class="table-scroll" tabindex="0" role="region" aria-label="API keys"><table aria-describedby="rotation-hint">
  <thead><tr><th scope="col">Name</th><th scope="col">Kind</th><th scope="col">Created</th><th scope="col">Actions</th></tr></thead>
  <tbody>${list.keys.map(
    (k) => html`<tr><th scope="row">${k.name}</th><td>${k.kind}</td><td>${timestamp(k.createdAt)}</td><td>${actions(ctx, k)}</td></tr>`,
  )}</tbody>
</table></div>
${pager(href, list.cursors.previous, list.cursors.next)}
<h2 id="create">Create a key</h2>
${errorSummary(options.errors ?? [])}
<form method="post" action="/console/admin/api-keys" class="stack">
  ${csrfField(ctx)}
  <div class="field">
    <label for="key-name">Name</label>
    <input id="key-name" name="name" value="${form.name}" required maxlength="100" autocomplete="off" aria-describedby="key-name-hint">
    <p class="hint" id="key-name-hint">1 to 100 characters, unique in the organisation: say what uses the key, for example <code>crm sync</code>.</p>
  </div>
  <fieldset>
    <legend>Kind</legend>
    ${apiKeyKinds.map(
      (kind) => html`<div><input type="radio" id="kind-${kind}" name="kind" value="${kind}" ${form.kind === kind && html`checked`}>
      <label for="kind-${kind}">${kind}</label> <span class="hint">${kindHints[kind]}</span></div>`,
    )}
  </fieldset>
  <button type="submit">Create the key</button>
</form>`,
  });
}

/** The answer to a creation or a rotation: the key's secret, this once, and how to send it. */
export function apiKeySecretPage(reply: FastifyReply, ctx: ConsoleRequest, org: Organization, key: ApiKey, secret: string, rotated: boolean) {
  return renderPage(reply, ctx, {
    title: rotated ? 'API key rotated' : 'API key created',
    body: html`${ONE_TIME_WARNING}
${rotated && html`<p>The previous secret of ${key.name} no longer works.</p>`}
<dl>
  <dt>Name</dt><dd>${key.name}</dd>
  <dt>Kind</dt><dd>${key.kind}</dd>
  <dt>Organisation id</dt><dd><code>${org.id}</code></dd>
  ${oneTimeSecret('api-key-secret', 'API key', secret)}
</dl>
<p>Send it in the header <code>Service-API-Key</code>, with the organisation id in <code>Service-OrgID</code>.</p>
<p><a href="/console/admin/api-keys">Back to the API keys</a></p>`,
  });
}
