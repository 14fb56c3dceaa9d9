import type { FastifyReply } from 'fastify';
import { type Person, type PersonRole, personRoles } from '../../store/types.ts';
import { handlesText, listText, timestamp } from '../cells.ts';
import type { ConsoleRequest } from '../context.ts';
import { type Html, html } from '../html.ts';
import { csrfField, errorSummary, renderPage } from '../layout.ts';
import { type Cursors, pager, withQuery } from './paging.ts';
import { type AttemptCounterView, attemptCountersSection } from './person-attempts.ts';
import { type SignInStanding, signInSection } from './person-sign-in.ts';

export interface NewPersonForm {
  email: string;
  phone: string;
  roles: string[];
  console: boolean;
}

export const emptyPersonForm: NewPersonForm = { email: '', phone: '', roles: [], console: true };

const roleHints: Record<PersonRole, string> = {
  admin: 'administers the organisation here',
  verifier: 'verifies callers by email code',
};

function roleBoxes(prefix: string, checked: readonly string[]): Html {
  return html`<fieldset>
    <legend>Roles</legend>
    ${personRoles.map(
      (role) => html`<div><input type="checkbox" id="${prefix}-${role}" name="roles" value="${role}" ${checked.includes(role) && html`checked`}>
      <label for="${prefix}-${role}">${role}</label> <span class="hint">${roleHints[role]}</span></div>`,
    )}
  </fieldset>`;
}

function consoleBox(id: string, checked: boolean): Html {
  return html`<div><input type="checkbox" id="${id}" name="console" value="yes" ${checked && html`checked`}>
    <label for="${id}">Member of the console</label> <span class="hint">may sign in here</span></div>`;
}

export interface PersonList {
  persons: Person[];
  cursors: Cursors;
  total: number | undefined;
}

/** The organisation's persons, a page at a time, and the form that creates one. */
export function personsPage(
  reply: FastifyReply,
  ctx: ConsoleRequest,
  list: PersonList,
  form: NewPersonForm,
  options: { errors?: string[]; status?: number; notice?: string | undefined } = {},
) {
  const href = (cursor: string) => withQuery('/console/admin/persons', { cursor });
  return renderPage(reply, ctx, {
    title: 'Persons',
    status: options.status ?? 200,
    notice: options.notice,
    body: html`<p><a href="/console/admin">Administration</a></p>
<h2>Persons of the organisation</h2>
${list.total !== undefined && html`<p>${list.total} ${list.total === 1 ? 'person' : 'persons'} in all.</p>`}
<div class="table-scroll" tabindex="0" role="region" aria-label="Persons"><table>
  <thead><tr><th scope="col">Handles</th><th scope="col">Roles</th><th scope="col">Console</th><th scope="col">Created</th></tr></thead>
  <tbody>${list.persons.map(
    (p) => html`<tr><th scope="row"><a href="/console/admin/persons/${p.id}">${handlesText(p.handles)}</a></th>
      <td>${listText(p.roles)}</td><td>${p.console ? 'member' : 'no'}</td><td>${timestamp(p.createdAt)}</td></tr>`,
  )}</tbody>
</table></div>
${pager(href, list.cursors.previous, list.cursors.next)}
<h2 id="create">Create a person</h2>
${errorSummary(options.errors ?? [])}
<form method="post" action="/console/admin/persons" class="stack">
  ${csrfField(ctx)}
  <div class="field">
    <label for="email">Email address</label>
    <input id="email" name="email" type="email" value="${form.email}" required autocomplete="off">
  </div>
  <div class="field">
    <label for="phone">Phone number (optional)</label>
    <input id="phone" name="phone" type="tel" value="${form.phone}" autocomplete="off" aria-describedby="phone-hint">
    <p class="hint" id="phone-hint">E.164: + then 7 to 15 digits, for example +14155550100.</p>
  </div>
  ${roleBoxes('new-role', form.roles)}
  ${consoleBox('new-console', form.console)}
  <button type="submit">Create person</button>
</form>`,
  });
}

/** One person: what they are, the form that changes their roles and membership, and deletion. */
export function personPage(
  reply: FastifyReply,
  ctx: ConsoleRequest,
  person: Person,
  self: boolean,
  counters: readonly AttemptCounterView[],
  standing: SignInStanding,
  options: { errors?: string[]; status?: number; notice?: string | undefined } = {},
) {
  return renderPage(reply, ctx, {
    title: handlesText(person.handles),
    status: options.status ?? 200,
    notice: options.notice,
    body: html`<p><a href="/console/admin/persons">All persons</a></p>
${errorSummary(options.errors ?? [])}
<dl class="facts">
  <dt>Id</dt><dd><code>${person.id}</code></dd>
  <dt>Handles</dt><dd>${handlesText(person.handles)}</dd>
  <dt>Roles</dt><dd>${listText(person.roles)}</dd>
  <dt>Console</dt><dd>${person.console ? 'member' : 'not a member'}</dd>
  <dt>Created</dt><dd>${timestamp(person.createdAt)}</dd>
</dl>
${signInSection(ctx, person, standing)}
${attemptCountersSection(ctx, person, counters)}
<h2>Roles and console membership</h2>
<form method="post" action="/console/admin/persons/${person.id}/access" class="stack">
  ${csrfField(ctx)}
  ${roleBoxes('role', person.roles)}
  ${consoleBox('console', person.console)}
  ${self && html`<p class="hint">This is you: you cannot take away your own admin role or console membership here, so the organisation always keeps an administrator.</p>`}
  <button type="submit">Save roles and membership</button>
</form>
<h2>Delete</h2>
${
  self
    ? html`<p>You cannot delete yourself; another administrator can.</p>`
    : html`<form method="post" action="/console/admin/persons/${person.id}/delete" class="stack" data-confirm="Delete this person and everything of theirs? This cannot be undone.">
  ${csrfField(ctx)}
  <p>Deletes the person with their handles and credentials, revokes their tokens and signs them out of the console.</p>
  <button type="submit" class="danger">Delete this person</button>
</form>`
}`,
  });
}
