import type { FastifyReply } from 'fastify';
import { clientDefaults, MAX_TOKEN_LIFETIME_SECONDS } from '../../config/defaults.ts';
import { JWT_BEARER_ASSERTION } from '../../oauth/client-assertion.ts';
import { JWT_SPIFFE_ASSERTION } from '../../oauth/spiffe-client-auth.ts';
import { type ClientGrantType, clientGrantTypes, type OAuthClient } from '../../store/types.ts';
import { listText, timestamp } from '../cells.ts';
import type { ConsoleRequest } from '../context.ts';
import { type Html, html } from '../html.ts';
import { csrfField, errorSummary, renderPage } from '../layout.ts';
import {
  type AuthenticationForm,
  authenticationFacts,
  authenticationFieldset,
  emptyAuthenticationForm,
  isSecretMethod,
  methodInBrief,
} from './client-authentication.ts';
import { ONE_TIME_WARNING, oneTimeSecret } from './one-time-secret.ts';
import { type Cursors, pager, withQuery } from './paging.ts';

export interface ClientForm {
  name: string;
  grantTypes: string[];
  /** Scope tokens separated by spaces, as typed. */
  scopes: string;
  duration: string;
  format: string;
  authentication: AuthenticationForm;
}

export const emptyClientForm: ClientForm = {
  name: '',
  grantTypes: [],
  scopes: '',
  duration: '',
  format: clientDefaults.accessTokenFormat,
  authentication: emptyAuthenticationForm,
};

export const grantNames: Record<ClientGrantType, { name: string; hint: string }> = {
  client_credentials: { name: 'Client credentials', hint: 'the client gets tokens for itself, authenticated as below' },
  'urn:ietf:params:oauth:grant-type:token-exchange': {
    name: 'Token exchange',
    hint: "RFC 8693: the client trades a person's or a workload's token for one of its own",
  },
};

export interface ClientList {
  clients: OAuthClient[];
  cursors: Cursors;
  total: number | undefined;
  /** The organisation's token_lifetime_ceiling, which caps every client's duration. */
  ceiling: number;
  /** TESSERA_DEV: a jwks_uri may then be http on a loopback address, and the form says so. */
  dev: boolean;
}

/** Rotating is offered to secret clients only: a keyed client has no secret (the operation answers 409). */
export function rotateSecretForm(ctx: ConsoleRequest, client: OAuthClient): Html {
  return html`${
    isSecretMethod(client.authMethod) &&
    html`<form method="post" action="/console/admin/clients/${client.id}/secret" class="inline"
    data-confirm="Rotate the secret of ${client.name}? Its current secret stops working at once.">
    ${csrfField(ctx)}<button type="submit" class="secondary">Rotate secret<span class="visually-hidden"> of ${client.name}</span></button>
  </form>`
  }`;
}

function actions(ctx: ConsoleRequest, client: OAuthClient): Html {
  return html`${rotateSecretForm(ctx, client)}
  <form method="post" action="/console/admin/clients/${client.id}/delete" class="inline"
    data-confirm="Delete the client ${client.name}? Its tokens are revoked and it can no longer authenticate. This cannot be undone.">
    ${csrfField(ctx)}<button type="submit" class="danger">Delete<span class="visually-hidden"> ${client.name}</span></button>
  </form>`;
}

function createForm(ctx: ConsoleRequest, form: ClientForm, ceiling: number, dev: boolean): Html {
  return html`<form method="post" action="/console/admin/clients" class="stack">
  ${csrfField(ctx)}
  <div class="field">
    <label for="client-name">Name</label>
    <input id="client-name" name="client_name" value="${form.name}" required maxlength="200" autocomplete="off">
  </div>
  <fieldset>
    <legend>Grant types</legend>
    ${clientGrantTypes.map(
      (grant, i) => html`<div><input type="checkbox" id="grant-${i}" name="grant_types" value="${grant}" ${form.grantTypes.includes(grant) && html`checked`}>
      <label for="grant-${i}">${grantNames[grant].name}</label> <span class="hint">${grantNames[grant].hint}</span></div>`,
    )}
  </fieldset>
  <div class="field">
    <label for="client-scopes">Scopes (optional)</label>
    <input id="client-scopes" name="scopes" value="${form.scopes}" autocomplete="off" aria-describedby="client-scopes-hint">
    <p class="hint" id="client-scopes-hint">The scopes the client may be granted, separated by spaces, for example <code>orders:read orders:write</code>.</p>
  </div>
  <div class="field">
    <label for="client-duration">Access token lifetime in seconds (optional)</label>
    <input id="client-duration" name="access_token_duration" value="${form.duration}" inputmode="numeric" autocomplete="off" aria-describedby="client-duration-hint">
    <p class="hint" id="client-duration-hint">60 to ${MAX_TOKEN_LIFETIME_SECONDS}; ${clientDefaults.accessTokenDuration} when left empty. No token outlives the organisation's ceiling, now ${ceiling} seconds.</p>
  </div>
  <fieldset>
    <legend>Format of the access tokens issued with client credentials</legend>
    <div><input type="radio" id="format-opaque" name="access_token_format" value="opaque" ${form.format === 'opaque' && html`checked`}>
      <label for="format-opaque">Opaque</label> <span class="hint">a reference checked by introspection; revocable at once</span></div>
    <div><input type="radio" id="format-jwt" name="access_token_format" value="jwt" ${form.format === 'jwt' && html`checked`}>
      <label for="format-jwt">JWT</label> <span class="hint">signed, checked offline against the published keys; lives until it expires</span></div>
  </fieldset>
  ${authenticationFieldset(form.authentication, dev)}
  <button type="submit">Register the client</button>
</form>`;
}

/** The organisation's OAuth clients, a page at a time, and the form that registers one. */
export function clientsPage(
  reply: FastifyReply,
  ctx: ConsoleRequest,
  list: ClientList,
  form: ClientForm,
  options: { errors?: string[]; status?: number; notice?: string | undefined } = {},
) {
  const href = (cursor: string) => withQuery('/console/admin/clients', { cursor });
  return renderPage(reply, ctx, {
    title: 'OAuth clients',
    status: options.status ?? 200,
    notice: options.notice,
    body: html`<p><a href="/console/admin">Administration</a></p>
<h2>Clients of the organisation</h2>
${list.total !== undefined && html`<p>${list.total} ${list.total === 1 ? 'client' : 'clients'} in all.</p>`}
<div class="table-scroll" tabindex="0" role="region" aria-label="OAuth clients"><table>
  <thead><tr><th scope="col">Name and id</th><th scope="col">Grant types</th><th scope="col" class="wide-only">Authentication</th><th scope="col" class="wide-only">Token format</th><th scope="col" class="wide-only">Created</th><th scope="col">Actions</th></tr></thead>
  <tbody>${list.clients.map(
    (c) => html`<tr><th scope="row"><a href="/console/admin/clients/${c.id}">${c.name}</a><br><code class="long-id">${c.id}</code>
      <span class="narrow-only hint">${methodInBrief(c.authMethod)}, ${c.accessTokenFormat} tokens, created ${timestamp(c.createdAt)}</span></th>
      <td>${listText(c.grantTypes.map((g) => grantNames[g].name))}</td><td class="wide-only">${authenticationFacts(c)}</td><td class="wide-only">${c.accessTokenFormat}</td><td class="wide-only">${timestamp(c.createdAt)}</td>
      <td class="actions">${actions(ctx, c)}</td></tr>`,
  )}</tbody>
</table></div>
${pager(href, list.cursors.previous, list.cursors.next)}
<h2 id="create">Register a client</h2>
${errorSummary(options.errors ?? [])}
${createForm(ctx, form, list.ceiling, list.dev)}`,
  });
}

const tryIt = (client: OAuthClient, command: string) =>
  client.grantTypes.includes('client_credentials') &&
  html`<h2>Try it</h2>
<p>A token for the client, with client credentials:</p>
<pre class="secret" id="client-curl">${command}</pre>
<button type="button" class="secondary" data-copy="client-curl" hidden>Copy the command</button>`;

const SECRET_TITLES = { registered: 'Client registered', rotated: 'Client secret rotated', switched: 'Client secret issued' } as const;

/** The answer to a registration, a rotation or a switch to a secret method: the secret, this once, and how to use it. */
export function clientSecretPage(
  reply: FastifyReply,
  ctx: ConsoleRequest,
  client: OAuthClient,
  secret: string,
  origin: string,
  what: keyof typeof SECRET_TITLES,
) {
  // Client ids and secrets are base64url: safe in HTTP Basic and in a shell's single quotes as they are.
  const curl = `curl -u '${client.id}:${secret}' -d grant_type=client_credentials ${origin}/oauth2/tokens`;
  return renderPage(reply, ctx, {
    title: SECRET_TITLES[what],
    body: html`${ONE_TIME_WARNING}
${what === 'rotated' && html`<p>The previous secret of ${client.name} no longer works.</p>`}
${what === 'switched' && html`<p>${client.name} now authenticates with this secret; what it used before no longer works.</p>`}
<dl>
  <dt>Name</dt><dd>${client.name}</dd>
  <dt>Client id</dt><dd><code id="client-id">${client.id}</code></dd>
  ${oneTimeSecret('client-secret', 'Client secret', secret)}
</dl>
${tryIt(client, curl)}
<p><a href="/console/admin/clients/${client.id}">The client's page</a> · <a href="/console/admin/clients">All OAuth clients</a></p>`,
  });
}

/** How a client without a secret proves who it is at the token endpoint, in a sentence and a request. */
export function keyedClientUse(client: OAuthClient, origin: string): { text: Html; assertionType: string; assertion: string } {
  if (client.authMethod === 'spiffe_jwt')
    return {
      text: html`It has no secret. At the token endpoint it sends its JWT-SVID for <code>${client.spiffeId ?? ''}</code> as <code>client_assertion</code>,
with an <code>aud</code> that contains the issuer <code>${origin}</code>. The SVID is checked against the SPIFFE trust domains of the
<a href="/console/admin/organization">organisation settings</a>.`,
      assertionType: JWT_SPIFFE_ASSERTION,
      assertion: '$SVID',
    };
  return {
    text: html`It has no secret. At the token endpoint it sends <code>client_assertion</code>, a JWT it signs with one of its private keys:
<code>iss</code> and <code>sub</code> its client id, <code>aud</code> the issuer <code>${origin}</code> alone, <code>exp</code> at most five
minutes ahead and a <code>jti</code> used once (RFC 7523).`,
    assertionType: JWT_BEARER_ASSERTION,
    assertion: '$ASSERTION',
  };
}

/** The answer to registering a client without a secret: nothing is shown once, the page says how it authenticates. */
export function keyedClientPage(reply: FastifyReply, ctx: ConsoleRequest, client: OAuthClient, origin: string) {
  const use = keyedClientUse(client, origin);
  const curl = `curl -d grant_type=client_credentials -d client_id=${client.id} -d client_assertion_type=${use.assertionType} -d "client_assertion=${use.assertion}" ${origin}/oauth2/tokens`;
  return renderPage(reply, ctx, {
    title: 'Client registered',
    body: html`<dl class="facts">
  <dt>Name</dt><dd>${client.name}</dd>
  <dt>Client id</dt><dd><code id="client-id">${client.id}</code></dd>
  <dt>Authentication</dt><dd id="client-authentication">${authenticationFacts(client)}</dd>
</dl>
<p>${use.text}</p>
${tryIt(client, curl)}
<p><a href="/console/admin/clients/${client.id}">The client's page</a> · <a href="/console/admin/clients">All OAuth clients</a></p>`,
  });
}
