import type { FastifyReply } from 'fastify';
import { RECENT_SIGN_IN_MS } from '../../authn/assurance.ts';
import type { ConsoleRequest } from '../context.ts';
import { html } from '../html.ts';
import { csrfField, errorSummary, renderPage } from '../layout.ts';

export interface ConfirmView {
  next: string;
  hasPassword: boolean;
  /** The person has passkeys and the organisation has passkeys turned on. */
  hasPasskey: boolean;
  errors?: string[];
  status?: number;
}

/** "Confirm it is you": the password or a passkey again, before a sensitive action. */
export function confirmPage(reply: FastifyReply, ctx: ConsoleRequest, view: ConfirmView): FastifyReply {
  const minutes = RECENT_SIGN_IN_MS / 60_000;
  return renderPage(reply, ctx, {
    title: 'Confirm it is you',
    webauthn: view.hasPasskey,
    status: view.status ?? 200,
    body: html`${errorSummary(view.errors ?? [])}
<p>You signed in more than ${minutes} minutes ago. Before you remove a factor, make recovery codes, change API keys, roles or
passkey settings, confirm who you are; then you can go on for ${minutes} minutes.</p>
<div class="error" role="alert" id="passkey-error" hidden></div>
${
  view.hasPasskey &&
  html`<p><button type="button" data-passkey-login data-options-url="/console/confirm/passkey/options" data-finish-url="/console/confirm/passkey"
  data-finish-next="${view.next}" data-csrf="${ctx.csrf}">Confirm with a passkey</button></p>`
}
${
  view.hasPassword &&
  html`<form method="post" action="/console/confirm" class="stack">
  ${csrfField(ctx)}
  <input type="hidden" name="next" value="${view.next}">
  <div class="field">
    <label for="password">Password</label>
    <input id="password" name="password" type="password" autocomplete="current-password" required autofocus>
  </div>
  <button type="submit">Confirm with your password</button>
</form>`
}
${!view.hasPassword && !view.hasPasskey && html`<p>You have neither a password nor a passkey to confirm with: sign out and sign in again.</p>`}
<p><a href="${view.next}">Cancel</a></p>`,
  });
}
