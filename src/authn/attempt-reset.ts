import { type Operator, operatorFields } from '../audit/admin-events.ts';
import { personNotFound } from '../errors/api-error.ts';
import { recordEvent } from '../store/audit/record-event.ts';
import type { AuthnAttemptStore } from '../store/authn/store.ts';
import type { PersonStore } from '../store/persons/store.ts';
import type { TransactionalStore } from '../store/store.ts';
import { handleCounterSubjects } from './attempt-subject.ts';

/**
 * Ends a person's lock, whichever door asks (API key, CLI): every counter of every handle and
 * credential type of theirs, the discoverable passkey login's too, starts again, and an audit
 * event says who reset how many. 404 for an unknown id. `hashCode` names the handles' counters
 * (attempt-subject.ts): the service's, keyed by TESSERA_SECRET.
 */
export async function resetAttemptsOfPerson(
  store: AuthnAttemptStore & PersonStore & TransactionalStore,
  orgId: string,
  personId: string,
  hashCode: (code: string) => string,
  operator: Operator,
  at: number,
): Promise<number> {
  const person = await store.getPerson(orgId, personId);
  if (!person) throw personNotFound();
  return store.inTransaction(async (tx) => {
    const cleared = await tx.clearAuthnAttemptsOfPerson(orgId, personId, handleCounterSubjects(orgId, person, hashCode));
    await recordEvent(tx, at, orgId, 'authn.attempts_reset', { person_id: personId, counters: cleared, ...operatorFields(operator) });
    return cleared;
  });
}
