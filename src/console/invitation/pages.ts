import type { FastifyReply } from 'fastify';
import type { OpenInvitation } from '../../invitations/redeem.ts';
import { NEW_PASSWORD_MIN_LENGTH } from '../../methods/password/new-password.ts';
import type { ConsoleRequest } from '../context.ts';
import { html } from '../html.ts';
import { csrfField, errorSummary, renderPage } from '../layout.ts';

/** How the page names the person: the handle they sign in with, else their id. */
function nameOf(invitation: OpenInvitation): string {
  const { person } = invitation;
  return person.handles.find((handle) => handle.type === 'email_address')?.value ?? person.handles[0]?.value ?? person.id;
}

/**
 * The page an invitation link opens: whose it is, what redeeming it does (a reset says that
 * what they hold stops working), and the password form. The token travels in a hidden field,
 * so the address the form posts to carries none.
 */
export function invitationPage(
  reply: FastifyReply,
  ctx: ConsoleRequest,
  token: string,
  opened: OpenInvitation,
  problem?: { status: number; message: string },
): FastifyReply {
  const { org, invitation, secondFactorOwed } = opened;
  return renderPage(reply, ctx, {
    title: invitation.reset ? 'Reset your sign-in' : 'Choose your password',
    status: problem?.status ?? 200,
    body: html`${errorSummary(problem ? [problem.message] : [])}
<p>For <strong>${nameOf(opened)}</strong> at <strong>${org.name}</strong>.
${
  invitation.reset
    ? html`Your administrator reset your sign-in: when you choose a new password, your present password, authenticator app and passkeys stop working, and every device you are signed in on is signed out.`
    : html`Your administrator invites you to sign in.`
}</p>
${secondFactorOwed && html`<p>Your roles need two factors: after the password you add a passkey or an authenticator app.</p>`}
<form method="post" action="/console/invitation" class="stack">
  ${csrfField(ctx)}
  <input type="hidden" name="token" value="${token}">
  <input type="text" name="username" value="${nameOf(opened)}" autocomplete="username" hidden>
  <div class="field">
    <label for="password">New password</label>
    <input id="password" name="password" type="password" autocomplete="new-password" required minlength="${String(NEW_PASSWORD_MIN_LENGTH)}" aria-describedby="password-hint">
    <p class="hint" id="password-hint">At least ${String(NEW_PASSWORD_MIN_LENGTH)} characters; a few words of your own make a good one. Not your organisation's name or your email address.</p>
  </div>
  <div class="field">
    <label for="password-again">The same password again</label>
    <input id="password-again" name="password_again" type="password" autocomplete="new-password" required>
  </div>
  <button type="submit">${secondFactorOwed ? 'Set the password and continue' : 'Set the password'}</button>
</form>
<p class="hint">The link works once, until ${new Date(invitation.expiresAt).toISOString().slice(0, 16).replace('T', ' ')} UTC.</p>`,
  });
}

/** After redeeming, for a person who does not use the console: where their password works. */
export function passwordSetPage(reply: FastifyReply, ctx: ConsoleRequest, opened: OpenInvitation): FastifyReply {
  return renderPage(reply, ctx, {
    title: 'Your password is set',
    body: html`<p>You can now sign in as <strong>${nameOf(opened)}</strong> to the applications of <strong>${opened.org.name}</strong> with your new password.</p>
${opened.secondFactorOwed && html`<p>Your roles need a second factor: add an authenticator app or a passkey from one of those applications before anything else.</p>`}`,
  });
}
