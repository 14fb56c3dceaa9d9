import type { FastifyReply } from 'fastify';
import type { StartedEnrolment } from '../../methods/totp/enrolment-flow.ts';
import type { ConsoleRequest } from '../context.ts';
import { type Html, html } from '../html.ts';
import { csrfField, errorSummary, renderPage } from '../layout.ts';
import { qrSvg } from './qr.ts';

const TITLE = 'Set up an authenticator app';

function recoveryCodeList(codes: readonly string[]): Html {
  return html`<div class="error" role="alert"><p><strong>Store these recovery codes now, somewhere safe apart from your phone.</strong>
They are shown only this once. Each one signs you in once instead of a code from the app, if you lose it.</p></div>
<ol class="secret recovery-codes">${codes.map((code) => html`<li><code>${code}</code></li>`)}</ol>`;
}

function confirmForm(ctx: ConsoleRequest, enrolmentId: string): Html {
  return html`<form method="post" action="/console/security/totp/confirm" class="stack">
  ${csrfField(ctx)}
  <input type="hidden" name="enrolment_id" value="${enrolmentId}">
  <div class="field">
    <label for="code">Code the app shows now</label>
    <input id="code" name="code" inputmode="numeric" autocomplete="one-time-code" required aria-describedby="code-hint">
    <p class="hint" id="code-hint">The six digits (or eight, for some apps) under your account in the app.</p>
  </div>
  <button type="submit">Confirm and turn on</button>
</form>`;
}

function startAgainForm(ctx: ConsoleRequest): Html {
  return html`<form method="post" action="/console/security/totp" class="inline">${csrfField(ctx)}<button type="submit" class="secondary">Start again with a new key</button></form>
<p><a href="/console/security">Back to My security</a></p>`;
}

/** The new key and recovery codes, shown once (in the POST's own answer), and the form for the first code. */
export function enrolmentPage(reply: FastifyReply, ctx: ConsoleRequest, started: StartedEnrolment): FastifyReply {
  return renderPage(reply, ctx, {
    title: TITLE,
    body: html`<section aria-labelledby="key-heading" class="stack">
<h2 id="key-heading">1. Add the key to your app</h2>
<p>Scan this QR code with your authenticator app.</p>
<div class="qr">${qrSvg(started.key_uri, 'QR code of the key for your authenticator app')}</div>
<p>If you cannot scan it, type this key into the app instead:</p>
<p class="secret" id="totp-secret">${started.secret}</p>
</section>
<section aria-labelledby="codes-heading" class="stack">
<h2 id="codes-heading">2. Save your recovery codes</h2>
${recoveryCodeList(started.recovery_codes)}
</section>
<section aria-labelledby="confirm-heading" class="stack">
<h2 id="confirm-heading">3. Confirm with a code from the app</h2>
<p>Nothing changes until you confirm. This set-up expires at ${started.expires_at.slice(11, 16)} UTC.</p>
${confirmForm(ctx, started.enrolment_id)}
</section>`,
  });
}

/**
 * After a wrong first code: the form again, but not the key. The pending enrolment holds the
 * key sealed, and showing it a second time would make it a secret shown twice; the person
 * already added it to their app, or starts again.
 */
export function confirmAgainPage(reply: FastifyReply, ctx: ConsoleRequest, enrolmentId: string, error: string, status: number): FastifyReply {
  return renderPage(reply, ctx, {
    title: TITLE,
    status,
    body: html`${errorSummary([error])}
<p>Use the key you already added to your app: enter the code it shows now. The QR code and the recovery codes are not shown again; if you did not add the key or save the codes, start again.</p>
${confirmForm(ctx, enrolmentId)}
${startAgainForm(ctx)}`,
  });
}

/** The enrolment is gone (expired, or confirmed already): only a new one can go on. */
export function enrolmentGonePage(reply: FastifyReply, ctx: ConsoleRequest, error: string): FastifyReply {
  return renderPage(reply, ctx, {
    title: TITLE,
    status: 404,
    body: html`${errorSummary([error])}
<p>This set-up is no longer open: it lasts ten minutes and is confirmed once.</p>
${startAgainForm(ctx)}`,
  });
}

/** The new recovery codes, shown once in the POST's answer. */
export function recoveryCodesPage(reply: FastifyReply, ctx: ConsoleRequest, codes: readonly string[]): FastifyReply {
  return renderPage(reply, ctx, {
    title: 'New recovery codes',
    body: html`<p class="notice" role="status">Your recovery codes were replaced: the old ones no longer work.</p>
${recoveryCodeList(codes)}
<p><a href="/console/security">Back to My security</a></p>`,
  });
}
