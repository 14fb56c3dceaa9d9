import { decideAttempt } from '../../authn/attempt-policy.ts';
import { handleCounterSubjects } from '../../authn/attempt-subject.ts';
import type { Person } from '../../store/types.ts';
import { timestamp } from '../cells.ts';
import type { ConsoleRequest } from '../context.ts';
import type { ConsoleDeps } from '../deps.ts';
import { type Html, html } from '../html.ts';
import { csrfField } from '../layout.ts';

/** One of a person's attempt counters as the person page shows it. */
export interface AttemptCounterView {
  credentialType: string;
  failures: number;
  lastAttemptAt: number;
  /** open: may try now; delayed: not before `until`; locked: only after a reset. */
  state: 'open' | 'delayed' | 'locked';
  until: number | null;
}

/**
 * The person's counters as GET /persons/{id}/authn-attempts reads them (their handles' and
 * their passkeys' user handle), judged at the console's clock, so that an administrator sees
 * a lock, or a handle being pushed toward one, before the person calls.
 */
export async function attemptCountersOf(deps: ConsoleDeps, person: Person): Promise<AttemptCounterView[]> {
  const subjects = handleCounterSubjects(person.orgId, person, deps.logins.context.hashCode);
  const records = await deps.store.listAuthnAttemptsOfPerson(person.orgId, person.id, subjects);
  const at = deps.now();
  return records.map((record) => {
    const decision = decideAttempt(record, at);
    const state = decision.kind === 'allowed' ? 'open' : decision.kind === 'wait' ? 'delayed' : 'locked';
    return { ...record, state, until: decision.kind === 'wait' ? at + decision.retryAfterMs : null };
  });
}

function stateText(counter: AttemptCounterView): Html {
  if (counter.state === 'locked') return html`<strong>locked</strong> until an administrator resets it`;
  if (counter.state === 'delayed') return html`next attempt not before ${timestamp(counter.until!, 'second')}`;
  return html`open`;
}

/** The person page's section of counters; says so when there are none. */
export function attemptCountersSection(ctx: ConsoleRequest, person: Person, counters: readonly AttemptCounterView[]): Html {
  return html`<h2 id="attempts">Failed sign-in attempts</h2>
${
  counters.length === 0
    ? html`<p>No failed attempts are counted against this person.</p>`
    : html`<div class="table-scroll" tabindex="0" role="region" aria-label="Failed sign-in attempts"><table>
  <thead><tr><th scope="col">Credential type</th><th scope="col">Failures</th><th scope="col">Last attempt</th><th scope="col">State</th></tr></thead>
  <tbody>${counters.map(
    (c) =>
      html`<tr><th scope="row">${c.credentialType}</th><td>${String(c.failures)}</td><td>${timestamp(c.lastAttemptAt, 'second')}</td><td>${stateText(c)}</td></tr>`,
  )}</tbody>
</table></div>
<p class="hint">Counted per handle and credential type since the last success; at 100 the handle is locked for that type.</p>
<form method="post" action="/console/admin/persons/${person.id}/attempts/reset" class="stack">
  ${csrfField(ctx)}
  <p>Once the person has proved who they are (to you, or to the helpdesk), end their lock: every counter starts again.</p>
  <button type="submit">Reset the failed-attempt counters</button>
</form>`
}`;
}
