import type { FastifyReply } from 'fastify';
import type { DirectoryIdentity } from '../../connections/directory-identity.ts';
import type { IdentityConnection } from '../../store/connections/store.ts';
import type { ConsoleRequest } from '../context.ts';
import { type Html, html } from '../html.ts';
import { csrfField, errorSummary, renderPage } from '../layout.ts';

export interface FindForm {
  connectionId: string;
  email: string;
  identityId: string;
}

/** Step 1: which directory, and whom in it. */
export function findPage(reply: FastifyReply, ctx: ConsoleRequest, connections: IdentityConnection[], form: FindForm, errors: string[] = [], status = 200) {
  const body =
    connections.length === 0
      ? html`<p>The organisation has no identity connections yet, so there is nobody to verify. An administrator adds one under Administration.</p>`
      : html`${errorSummary(errors)}
<p>Find the caller in a directory, send them a code by email, and type the code they read out to you.</p>
<form method="post" action="/console/verify/find" class="stack">
  ${csrfField(ctx)}
  <div class="field">
    <label for="connection">Directory</label>
    <select id="connection" name="connection_id" required>
      ${connections.map((c) => html`<option value="${c.id}" ${c.id === form.connectionId && html`selected`}>${c.name}</option>`)}
    </select>
  </div>
  <fieldset>
    <legend>The caller</legend>
    <div class="field">
      <label for="email">Email address</label>
      <input id="email" name="email" type="email" value="${form.email}" autocomplete="off" aria-describedby="caller-hint">
    </div>
    <div class="field">
      <label for="identity">or identity id</label>
      <input id="identity" name="identity_id" value="${form.identityId}" autocomplete="off" aria-describedby="caller-hint">
    </div>
    <p class="hint" id="caller-hint">Fill in one of the two: the address the directory holds, or the identity's id there.</p>
  </fieldset>
  <button type="submit">Find</button>
</form>`;
  return renderPage(reply, ctx, { title: 'Verify a caller', status, body });
}

/** Step 2: who was found; sending the code is a deliberate second click. */
export function foundPage(reply: FastifyReply, ctx: ConsoleRequest, connection: IdentityConnection, identity: DirectoryIdentity) {
  return renderPage(reply, ctx, {
    title: 'Send a code',
    body: html`<dl class="facts">
  <dt>Directory</dt><dd>${connection.name}</dd>
  <dt>Name</dt><dd>${identity.displayName ?? '(none given)'}</dd>
  <dt>Email address</dt><dd>${identity.email ?? '(none)'}</dd>
  <dt>Identity id</dt><dd>${identity.identityId}</dd>
</dl>
<form method="post" action="/console/verify/send" class="stack">
  ${csrfField(ctx)}
  <input type="hidden" name="connection_id" value="${connection.id}">
  <input type="hidden" name="identity_id" value="${identity.identityId}">
  <button type="submit">Send a code to this address</button>
</form>
<p><a href="/console/verify">Find someone else</a></p>`,
  });
}

export interface CodeState {
  verificationId: string;
  sentTo: string;
  expiresAt: number;
  /** After a wrong code: how many may still be tried. */
  attemptsLeft?: number;
}

/** Step 3: the code the caller reads out. */
export function codeEntryPage(reply: FastifyReply, ctx: ConsoleRequest, state: CodeState, errors: string[] = [], status = 200) {
  const wrong = state.attemptsLeft !== undefined;
  return renderPage(reply, ctx, {
    title: wrong ? 'Wrong code' : 'Code sent',
    status,
    body: html`${
      wrong
        ? html`<div class="error" role="alert"><p>That code is wrong. ${state.attemptsLeft} ${state.attemptsLeft === 1 ? 'attempt' : 'attempts'} left before this verification locks.</p></div>`
        : html`<p class="notice" role="status">A code was sent to ${state.sentTo}. It is valid until ${new Date(state.expiresAt).toISOString().slice(11, 16)} UTC.</p>`
    }
${errorSummary(errors)}
<form method="post" action="/console/verify/${state.verificationId}" class="stack">
  ${csrfField(ctx)}
  <div class="field">
    <label for="code">Code the caller reads out</label>
    <input id="code" name="code" inputmode="numeric" autocomplete="off" pattern="[0-9]{6}" maxlength="6" required aria-describedby="code-hint" autofocus>
    <p class="hint" id="code-hint">Six digits, from the email the caller received.</p>
  </div>
  <button type="submit">Check the code</button>
</form>`,
  });
}

export type Outcome = 'verified' | 'locked' | 'denied' | 'gone';

/** Whom a verification was for, as it knows them: the address the code went to, the identity, its directory. */
export interface Subject {
  email: string;
  identityId: string;
  directory: string;
}

interface OutcomeText {
  title: string;
  status: number;
  ok: boolean;
  /** The verdict on the person, first, so the verifier reads who before why. */
  verdict: (email: Html) => Html;
  text: string;
}

const outcomes: Record<Outcome, OutcomeText> = {
  verified: {
    title: 'Verified',
    status: 200,
    ok: true,
    verdict: (email) => html`${email} is verified.`,
    text: 'The caller read out the right code: they hold this email address.',
  },
  locked: {
    title: 'Locked',
    status: 429,
    ok: false,
    verdict: (email) => html`${email} is not verified.`,
    text: 'Too many wrong codes: this verification is locked. Start a new one if the caller should try again.',
  },
  denied: {
    title: 'Denied',
    status: 403,
    ok: false,
    verdict: (email) => html`${email} is not verified.`,
    text: 'The directory no longer vouches for this caller: the identity was removed or deactivated (or its email changed) since the code was sent. Do not treat the caller as verified.',
  },
  gone: {
    title: 'No longer open',
    status: 404,
    ok: false,
    verdict: (email) => html`The code sent to ${email} can no longer be checked.`,
    text: 'This verification has expired, was used already, or was replaced by a newer code. Start a new one.',
  },
};

/**
 * The end of a verification, in plain words, naming whom it was for (unless the id names no
 * verification of the organisation): a verifier with several callers on hold must not tell the
 * wrong one they were verified.
 */
export function outcomePage(reply: FastifyReply, ctx: ConsoleRequest, outcome: Outcome, subject?: Subject) {
  const o = outcomes[outcome];
  return renderPage(reply, ctx, {
    title: o.title,
    status: o.status,
    body: html`<div class="${o.ok ? 'outcome-ok' : 'error'}" role="${o.ok ? 'status' : 'alert'}">
  ${subject && html`<p>${o.verdict(html`<strong>${subject.email}</strong>`)}</p>`}
  <p>${o.text}</p>
</div>
${
  subject &&
  html`<dl class="facts">
  <dt>Email address</dt><dd>${subject.email}</dd>
  <dt>Identity id</dt><dd>${subject.identityId}</dd>
  <dt>Directory</dt><dd>${subject.directory}</dd>
</dl>`
}
<p><a href="/console/verify">Verify another caller</a></p>`,
  });
}
