import type { FastifyReply } from 'fastify';
import type { OAuthClient } from '../../store/types.ts';
import { listText, timestamp } from '../cells.ts';
import type { ConsoleRequest } from '../context.ts';
import { html } from '../html.ts';
import { csrfField, errorSummary, renderPage } from '../layout.ts';
import { type AuthenticationForm, authenticationFacts, authenticationFieldset, isSecretMethod } from './client-authentication.ts';
import { grantNames, keyedClientUse, rotateSecretForm } from './client-pages.ts';

export interface ClientPageOptions {
  /** The switch form as typed, after a refusal; the client's own authentication otherwise. */
  form: AuthenticationForm;
  dev: boolean;
  origin: string;
  errors?: string[];
  status?: number;
  notice?: string | undefined;
}

/** One client: what it is, how it authenticates, and rotating its secret, switching its method or deleting it. */
export function clientPage(reply: FastifyReply, ctx: ConsoleRequest, client: OAuthClient, options: ClientPageOptions) {
  return renderPage(reply, ctx, {
    title: client.name,
    status: options.status ?? 200,
    notice: options.notice,
    body: html`<p><a href="/console/admin/clients">All OAuth clients</a></p>
<dl class="facts">
  <dt>Client id</dt><dd><code id="client-id">${client.id}</code></dd>
  <dt>Authentication</dt><dd id="client-authentication">${authenticationFacts(client)}</dd>
  <dt>Grant types</dt><dd>${listText(client.grantTypes.map((grant) => grantNames[grant].name))}</dd>
  <dt>Scopes</dt><dd>${listText(client.scopes)}</dd>
  <dt>Access tokens</dt><dd>${client.accessTokenFormat}, ${client.accessTokenDuration} seconds</dd>
  <dt>Created</dt><dd>${timestamp(client.createdAt)}</dd>
</dl>
${isSecretMethod(client.authMethod) ? html`<p>It authenticates with a secret, which Tessera keeps only as a hash: a lost secret is rotated, not shown again.</p>` : html`<p>${keyedClientUse(client, options.origin).text}</p>`}
${
  isSecretMethod(client.authMethod) &&
  html`<h2>Secret</h2>
${rotateSecretForm(ctx, client)}`
}
<h2 id="authentication">Change how it authenticates</h2>
${errorSummary(options.errors ?? [])}
<form method="post" action="/console/admin/clients/${client.id}/authentication" class="stack"
  data-confirm="Change how ${client.name} authenticates? What it uses now stops working at once.">
  ${csrfField(ctx)}
  <p>Switching to a private key or a SPIFFE ID drops the secret; switching from them to a secret makes a new one, shown once.
  The fields start with what it uses now: empty those of a method it leaves. Other keys replace the ones it has.</p>
  ${authenticationFieldset(options.form, options.dev, 'switch')}
  <button type="submit">Change the authentication</button>
</form>
<h2>Delete</h2>
<form method="post" action="/console/admin/clients/${client.id}/delete" class="stack"
  data-confirm="Delete the client ${client.name}? Its tokens are revoked and it can no longer authenticate. This cannot be undone.">
  ${csrfField(ctx)}
  <p>Deletes the client and revokes its tokens.</p>
  <button type="submit" class="danger">Delete this client</button>
</form>`,
  });
}
