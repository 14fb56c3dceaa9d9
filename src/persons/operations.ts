import { type Operator, recordAdminEvent } from '../audit/admin-events.ts';
import { ApiError, personNotFound } from '../errors/api-error.ts';
import type { AccessActor, AccessOutcome, NewPersonRecord, PersonAccess } from '../store/persons/store.ts';
import type { TransactionalStore } from '../store/store.ts';

/**
 * The changes an administrator makes to persons, whichever door they come through (API key,
 * console, CLI): each change and its audit event naming the operator commit in one transaction.
 */

const lastConsoleAdmin = () =>
  new ApiError('CONFLICT', "person: is the organisation's last console administrator; make another person a console administrator first");

export async function createPerson(store: TransactionalStore, person: NewPersonRecord, operator: Operator, at: number): Promise<void> {
  await store.inTransaction(async (tx) => {
    await tx.createPerson(person);
    await recordAdminEvent(tx, at, person.orgId, operator, 'person.created', { person_id: person.id, roles: person.roles, console: person.console });
  });
}

/**
 * Changes a person's roles or console membership (404 for an unknown id). A change of roles
 * raises their generation (design §5), which ends their person JWTs and console sessions.
 * Taken out of the console, their console sessions end here; a sign-in racing this change is
 * refused on its next request anyway, since the console reads membership on every request.
 * `actor`: the person whose console session asks (the console's own door); their change holds
 * only while that session's generation is theirs ('actor_ended' otherwise, nothing changed),
 * and never takes away the organisation's last console administrator (409).
 */
export function changePersonAccess(
  store: TransactionalStore,
  orgId: string,
  id: string,
  access: PersonAccess,
  at: number,
  operator: Operator,
  actor?: AccessActor,
): Promise<Extract<AccessOutcome, { kind: 'changed' | 'actor_ended' }>> {
  return store.inTransaction(async (tx) => {
    const outcome = await tx.setPersonAccess(orgId, id, access, at, actor);
    if (outcome.kind === 'not_found') throw personNotFound();
    if (outcome.kind === 'last_console_admin') throw lastConsoleAdmin();
    if (outcome.kind === 'actor_ended') return outcome;
    if (access.console === false) await tx.deleteConsoleSessionsOfPerson(orgId, id);
    await recordAdminEvent(tx, at, orgId, operator, 'person.access_changed', {
      person_id: id,
      roles: outcome.person.roles,
      console: outcome.person.console,
      generation_raised: outcome.raised,
    });
    return outcome;
  });
}

/**
 * Deletes a person and everything of theirs (404 for an unknown id). Their opaque tokens are
 * revoked in the same transaction; their JWTs, which cannot be revoked, are refused at exchange
 * because the person is looked up there. `keepingAConsoleAdmin`: the console's door, which
 * never deletes the organisation's last console administrator (409).
 */
export async function deletePerson(
  store: TransactionalStore,
  orgId: string,
  id: string,
  at: number,
  operator: Operator,
  options: { keepingAConsoleAdmin: boolean },
): Promise<void> {
  await store.inTransaction(async (tx) => {
    const outcome = options.keepingAConsoleAdmin
      ? await tx.deletePersonKeepingAConsoleAdmin(orgId, id, at)
      : (await tx.deletePerson(orgId, id, at))
        ? 'deleted'
        : 'not_found';
    if (outcome === 'not_found') throw personNotFound();
    if (outcome === 'last_console_admin') throw lastConsoleAdmin();
    await recordAdminEvent(tx, at, orgId, operator, 'person.deleted', { person_id: id });
  });
}

/** "Sign out everywhere": raises the person's generation (design §5) and says who asked; undefined for an unknown id. */
export function signOutEverywhere(store: TransactionalStore, orgId: string, id: string, at: number, operator: Operator): Promise<number | undefined> {
  return store.inTransaction(async (tx) => {
    const generation = await tx.raisePersonGeneration(orgId, id, at);
    if (generation !== undefined) await recordAdminEvent(tx, at, orgId, operator, 'person.signed_out_everywhere', { person_id: id, generation });
    return generation;
  });
}
