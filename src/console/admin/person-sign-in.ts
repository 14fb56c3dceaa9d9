import type { FastifyReply } from 'fastify';
import { hasSecondFactor, needsTwoFactors } from '../../authn/assurance.ts';
import type { MadeInvitation } from '../../invitations/invite.ts';
import type { Invitation } from '../../store/invitations/store.ts';
import type { Person } from '../../store/types.ts';
import { handlesText, timestamp } from '../cells.ts';
import type { ConsoleRequest } from '../context.ts';
import type { ConsoleDeps } from '../deps.ts';
import { type Html, html } from '../html.ts';
import { csrfField, renderPage } from '../layout.ts';
import { oneTimeSecret } from './one-time-secret.ts';

/** What the person page says of a person's login: whether they hold credentials, and their open invitation. */
export interface SignInStanding {
  holdsCredentials: boolean;
  invitation: Invitation | undefined;
}

/** Whether the person holds credentials (an invitation is then a reset) and their open invitation. */
export async function signInStanding(deps: Pick<ConsoleDeps, 'store' | 'now'>, person: Person): Promise<SignInStanding> {
  const [held, invitation] = await Promise.all([
    deps.store.listCredentials(person.orgId, person.id, { position: { kind: 'first' }, limit: 1 }),
    deps.store.getInvitationOfPerson(person.orgId, person.id, deps.now()),
  ]);
  // A half-used link (password set) is spent once a second factor is there, though the row goes only when next opened.
  const spent = invitation?.passwordSetAt != null && (await hasSecondFactor(deps.store, person.orgId, person.id));
  return { holdsCredentials: held.items.length > 0, invitation: spent ? undefined : invitation };
}

/** The choices of how long a link works, in hours; the API takes any number of seconds in its range. */
export const LINK_LIFETIMES_HOURS = [24, 72, 168] as const;

function invitationState(invitation: Invitation | undefined): Html {
  if (!invitation) return html`<p>No invitation link is open.</p>`;
  const waiting = invitation.passwordSetAt !== null ? html` The password is set; the link is spent once they add a second factor.` : html``;
  return html`<p>An invitation link${invitation.reset ? html` (a reset)` : html``} is open until ${timestamp(invitation.expiresAt)}.${waiting} Making a new one revokes it.</p>`;
}

/**
 * The person page's section on their login (design §9): an invitation link for a person without
 * credentials, a reset for one who holds some, which asks for a recent sign-in and says what it
 * ends; the link may also be emailed to their email address.
 */
export function signInSection(ctx: ConsoleRequest, person: Person, standing: SignInStanding): Html {
  const email = person.handles.find((handle) => handle.type === 'email_address')?.value;
  const reset = standing.holdsCredentials;
  return html`<h2 id="sign-in">Sign-in</h2>
${invitationState(standing.invitation)}
<form method="post" action="/console/admin/persons/${person.id}/invitation" class="stack"${reset && html` data-confirm="Reset this person's sign-in? When they use the link, their password, authenticator app and passkeys stop working and they are signed out everywhere."`}>
  ${csrfField(ctx)}
  <p>${
    reset
      ? html`They hold credentials: the link <strong>resets</strong> their sign-in. When they use it, what they hold is replaced by the password they choose, and their tokens and console sessions end.`
      : html`A one-time link where they choose their password${needsTwoFactors(person) ? html` and add a second factor` : html``}.`
  }</p>
  <div class="field">
    <label for="lifetime">The link works for</label>
    <select id="lifetime" name="lifetime_hours">${LINK_LIFETIMES_HOURS.map(
      (hours) => html`<option value="${String(hours)}" ${hours === 72 && html`selected`}>${hours < 48 ? `${hours} hours` : `${hours / 24} days`}</option>`,
    )}</select>
  </div>
  ${
    email
      ? html`<div><input type="checkbox" id="send" name="send" value="yes"> <label for="send">Also email it to ${email}</label></div>`
      : html`<p class="hint">They have no email address: pass the link on yourself.</p>`
  }
  <button type="submit"${reset && html` class="danger"`}>${reset ? 'Reset sign-in and make a link' : 'Make an invitation link'}</button>
</form>`;
}

/** The link, shown once on the page that made it. */
export function invitationMadePage(reply: FastifyReply, ctx: ConsoleRequest, person: Person, made: MadeInvitation): FastifyReply {
  return renderPage(reply, ctx, {
    title: made.reset ? 'Sign-in reset link' : 'Invitation link',
    body: html`<p><a href="/console/admin/persons/${person.id}">Back to ${handlesText(person.handles)}</a></p>
<div class="notice" role="status"><p><strong>Copy the link now: this is the only time it is shown.</strong> Tessera keeps only its hash; if it is lost, make a new one (which revokes this one).</p></div>
<dl class="facts">
  ${oneTimeSecret('invitation-url', 'Link', made.url)}
  <dt>Works until</dt><dd>${timestamp(made.expiresAt)}, once</dd>
  <dt>Emailed</dt><dd>${made.emailedTo ? html`to ${made.emailedTo}` : html`no`}</dd>
</dl>
<p>Give it to ${handlesText(person.handles)} only, through a channel you trust: whoever opens it chooses the password.</p>`,
  });
}
