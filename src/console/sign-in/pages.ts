import type { FastifyReply } from 'fastify';
import type { ConsoleRequest } from '../context.ts';
import { html } from '../html.ts';
import { csrfField, errorSummary, renderPage } from '../layout.ts';

export interface SignInForm {
  organization: string;
  email: string;
  errors?: string[];
  notice?: string | undefined;
  status?: number;
}

/**
 * One page, two ways in: a passkey (the button runs the ceremony from console.js; with an email
 * it is for that person, without one the browser offers the passkeys it holds), or a password
 * (a plain form, working without script).
 */
export function signInPage(reply: FastifyReply, ctx: ConsoleRequest, form: SignInForm): FastifyReply {
  return renderPage(reply, ctx, {
    title: 'Sign in',
    webauthn: true,
    notice: form.notice,
    status: form.status ?? 200,
    body: html`${errorSummary(form.errors ?? [])}
<div class="error" role="alert" id="passkey-error" hidden></div>
<form method="post" action="/console/sign-in" id="sign-in" class="stack" data-csrf="${ctx.csrf}">
  ${csrfField(ctx)}
  <div class="field">
    <label for="organization">Organisation</label>
    <input id="organization" name="organization" value="${form.organization}" autocomplete="organization" required aria-describedby="organization-hint">
    <p class="hint" id="organization-hint">Its name (for example <code>demo</code>) or its id.</p>
  </div>
  <div class="field">
    <label for="email">Email address</label>
    <input id="email" name="email" type="email" value="${form.email}" autocomplete="username webauthn" aria-describedby="email-hint">
    <p class="hint" id="email-hint">For a passkey you may leave it empty and choose among the passkeys this device holds.</p>
  </div>
  <fieldset>
    <legend>With a passkey</legend>
    <button type="button" id="passkey-sign-in">Sign in with a passkey</button>
    <p class="hint js-hidden">Passkeys need JavaScript; sign in with your password instead.</p>
  </fieldset>
  <fieldset>
    <legend>With a password</legend>
    <div class="field">
      <label for="password">Password</label>
      <input id="password" name="password" type="password" autocomplete="current-password">
    </div>
    <button type="submit">Sign in with password</button>
  </fieldset>
</form>`,
  });
}

/** Which second factors the person whose password was accepted can complete the sign-in with. */
export interface SecondFactorChoice {
  totp: boolean;
  passkey: boolean;
}

/** The second step of a password sign-in: the authenticator app's code (or a recovery code), or a passkey. */
export function codePage(reply: FastifyReply, ctx: ConsoleRequest, choice: SecondFactorChoice, problem?: { status: number; message: string }): FastifyReply {
  return renderPage(reply, ctx, {
    title: choice.totp ? 'Enter your code' : 'Confirm with your passkey',
    webauthn: choice.passkey,
    status: problem?.status ?? 200,
    body: html`${errorSummary(problem ? [problem.message] : [])}
<div class="error" role="alert" id="passkey-error" hidden></div>
${
  choice.passkey &&
  html`<p><button type="button" data-passkey-login data-options-url="/console/sign-in/code/passkey/options" data-finish-url="/console/sign-in/code/passkey"
  data-csrf="${ctx.csrf}">Use your passkey</button></p>
<p class="hint js-hidden">Passkeys need JavaScript in this browser${choice.totp ? '; use the code from your app instead' : ''}.</p>`
}
${
  choice.totp &&
  html`<form method="post" action="/console/sign-in/code" class="stack">
  ${csrfField(ctx)}
  <div class="field">
    <label for="code">Code from your authenticator app</label>
    <input id="code" name="code" autocomplete="one-time-code" inputmode="numeric" required aria-describedby="code-hint" autofocus>
    <p class="hint" id="code-hint">Six digits, or one of your recovery codes if you do not have the app at hand.</p>
  </div>
  <button type="submit">Continue</button>
</form>`
}
<p class="hint">Your password was right; this second step has five minutes and five tries.</p>
<form method="post" action="/console/sign-out" class="inline">${csrfField(ctx)}<button type="submit" class="link">Cancel and sign in again</button></form>`,
  });
}
