import type { FastifyReply } from 'fastify';
import { totpCredentialType } from '../../methods/totp/index.ts';
import type { Credential } from '../../store/credentials/store.ts';
import { timestamp } from '../cells.ts';
import type { ConsoleRequest } from '../context.ts';
import { type Html, html } from '../html.ts';
import { csrfField, renderPage } from '../layout.ts';

/** What the security page shows of the signed-in person. */
export interface SecurityView {
  passkeys: Credential[];
  totp: Credential[];
  password: Credential | undefined;
  /** The organisation has an RP id and origins: passkeys can be added. */
  passkeysEnabled: boolean;
  /** Where passkeys can be added instead, when this address is not within the RP id (127.0.0.1 for `localhost`). */
  passkeysAt?: string | undefined;
}

/** How a passkey is added: the form console.js runs the ceremony from, or why it cannot run here. */
export function passkeyAdding(ctx: ConsoleRequest, view: Pick<SecurityView, 'passkeysEnabled' | 'passkeysAt'>): Html {
  if (!view.passkeysEnabled) {
    return html`<p class="hint">Your organisation has not turned passkeys on: an administrator sets them up under Organisation settings.</p>`;
  }
  if (view.passkeysAt) {
    return html`<p class="hint">Passkeys of this organisation work at <a href="${view.passkeysAt}/console/">${view.passkeysAt}</a>, not at this address: open the console there to add one.</p>`;
  }
  return html`<div class="error" role="alert" id="passkey-error" hidden></div>
<form id="passkey-register" class="stack" data-csrf="${ctx.csrf}">
  <div class="field">
    <label for="passkey-label">Label for the new passkey</label>
    <input id="passkey-label" name="label" maxlength="100" autocomplete="off" aria-describedby="passkey-label-hint">
    <p class="hint" id="passkey-label-hint">Optional, up to 100 characters: which device or key it is (for example "work laptop").</p>
  </div>
  <button type="submit">Add a passkey</button>
  <p class="hint js-hidden">Adding a passkey needs JavaScript in this browser.</p>
</form>`;
}

/** A moment as the tables show it; "never" for none. */
export function when(at: number | null): Html {
  return at === null ? html`never` : timestamp(at);
}

function passkeySection(ctx: ConsoleRequest, view: SecurityView): Html {
  const table =
    view.passkeys.length === 0
      ? html`<p>You have no passkeys yet.</p>`
      : html`<div class="table-scroll" tabindex="0" role="region" aria-label="Passkeys"><table>
  <caption>Your passkeys</caption>
  <thead><tr><th scope="col">Label</th><th scope="col">Added</th><th scope="col">Last used</th><th scope="col">Actions</th></tr></thead>
  <tbody>${view.passkeys.map(
    (c) => html`<tr>
    <th scope="row">${c.label ?? '(no label)'}</th><td>${when(c.createdAt)}</td><td>${when(c.lastUsed)}</td>
    <td><form method="post" action="/console/security/passkeys/${c.id}/remove" class="inline" data-confirm="Remove the passkey ${c.label ?? '(no label)'}? You can no longer sign in with it.">
      ${csrfField(ctx)}<button type="submit" class="danger" aria-label="Remove passkey ${c.label ?? '(no label)'}">Remove</button>
    </form></td>
  </tr>`,
  )}</tbody>
</table></div>`;
  const register = passkeyAdding(ctx, view);
  return html`<section aria-labelledby="passkeys-heading" class="stack">
<h2 id="passkeys-heading">Passkeys</h2>
${table}
${register}
</section>`;
}

function totpCredential(ctx: ConsoleRequest, c: Credential): Html {
  const counts = totpCredentialType.present({ params: c.params, secret: c.secret });
  return html`<dl>
  ${c.label !== null && html`<dt>Label</dt><dd>${c.label}</dd>`}
  <dt>Added</dt><dd>${when(c.createdAt)}</dd>
  <dt>Last used</dt><dd>${when(c.lastUsed)}</dd>
  <dt>Recovery codes</dt><dd>${String(counts.recovery_codes_unused)} unused of ${String(counts.recovery_codes_total)}</dd>
</dl>
<form method="post" action="/console/security/totp/${c.id}/recovery-codes" class="inline" data-confirm="Make new recovery codes? The ones you have now will stop working.">
  ${csrfField(ctx)}<button type="submit" class="secondary">Regenerate recovery codes</button>
</form>
<form method="post" action="/console/security/totp/${c.id}/remove" class="inline" data-confirm="Remove the authenticator app? Signing in with your password will no longer ask for its code.">
  ${csrfField(ctx)}<button type="submit" class="danger">Remove authenticator app</button>
</form>`;
}

function totpSection(ctx: ConsoleRequest, view: SecurityView): Html {
  const body =
    view.totp.length === 0
      ? html`<p>No authenticator app is set up. With one, signing in with your password also asks for the six-digit code the app shows.</p>
<form method="post" action="/console/security/totp">${csrfField(ctx)}<button type="submit">Set up an authenticator app</button></form>`
      : view.totp.map((c) => totpCredential(ctx, c));
  return html`<section aria-labelledby="totp-heading" class="stack">
<h2 id="totp-heading">Authenticator app</h2>
${body}
</section>`;
}

function passwordSection(view: SecurityView): Html {
  const body = view.password ? html`<p>You have a password. Last used: ${when(view.password.lastUsed)}.</p>` : html`<p>You have no password.</p>`;
  return html`<section aria-labelledby="password-heading" class="stack"><h2 id="password-heading">Password</h2>${body}</section>`;
}

function sessionSection(ctx: ConsoleRequest): Html {
  return html`<section aria-labelledby="sessions-heading" class="stack">
<h2 id="sessions-heading">Sessions</h2>
<p>Signed in somewhere you no longer use, or on a device you lost? End every console session of yours, this one included, and every token you signed in for before.</p>
<form method="post" action="/console/sign-out-everywhere" data-confirm="Sign out on every device, this one included?">
  ${csrfField(ctx)}<button type="submit" class="danger">Sign out everywhere</button>
</form>
</section>`;
}

/** "My security": how the signed-in person signs in, and the means to change it. */
export function securityPage(reply: FastifyReply, ctx: ConsoleRequest, view: SecurityView, notice?: string): FastifyReply {
  return renderPage(reply, ctx, {
    title: 'My security',
    webauthn: view.passkeysEnabled && !view.passkeysAt,
    notice,
    body: html`${passkeySection(ctx, view)}
${totpSection(ctx, view)}
${passwordSection(view)}
${sessionSection(ctx)}`,
  });
}
