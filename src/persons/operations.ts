import { type Operator, recordAdminEvent } from '../audit/admin-events.ts';
import { newId } from '../crypto/ids.ts';
import { ApiError, invalidField, personNotFound } from '../errors/api-error.ts';
import type { AccessActor, AccessOutcome, NewPersonRecord, PersonAccess } from '../store/persons/store.ts';
import type { TransactionalStore } from '../store/store.ts';
import type { Handle, Person, PersonRole } from '../store/types.ts';
import { canonicalHandle, handleProblem } from '../validation/handle.ts';

// The changes an administrator makes to persons, whichever door they come through (API key,
// console, CLI): each change and its audit event naming the operator commit in one transaction,
// and none leaves the organisation without a console administrator.

/** A person as the API shows them. */
export function presentPerson(person: Person) {
  return { id: person.id, handles: person.handles, roles: person.roles, console: person.console, created_at: new Date(person.createdAt).toISOString() };
}

/** A new person of `orgId` from what a caller gave, its handles in canonical form (400 naming `field` otherwise). */
export function newPerson(
  orgId: string,
  given: { handles: readonly Handle[]; roles?: PersonRole[]; console?: boolean },
  field?: string,
  at = Date.now(),
): Person {
  return {
    id: newId('per', at),
    orgId,
    handles: normaliseHandles(given.handles, field),
    roles: given.roles ?? [],
    console: given.console ?? false,
    createdAt: at,
    generation: 0,
  };
}

/**
 * Puts each handle in its canonical form (see canonicalHandle), then checks it there, so the
 * value that is validated is the one that is compared and stored. A handle repeated within
 * the request, in any spelling, names the first occurrence.
 */
function normaliseHandles(handles: readonly Handle[], field = 'body.handles'): Handle[] {
  const seen = new Map<string, number>();
  return handles.map((given, index) => {
    const handle = canonicalHandle(given);
    const problem = handleProblem(handle);
    if (problem) throw invalidField(`${field}[${index}].value`, problem);
    const key = `${handle.type}:${handle.value}`;
    const earlier = seen.get(key);
    if (earlier !== undefined) throw invalidField(`${field}[${index}]`, `repeats ${field}[${earlier}]`);
    seen.set(key, index);
    return handle;
  });
}

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
 * Whatever the door, it never takes away the organisation's last console administrator (409,
 * design §9). `actor`: the person whose console session asks (the console's own door); their
 * change holds only while that session's generation is theirs ('actor_ended' otherwise,
 * nothing changed).
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
 * Deletes a person and everything of theirs (404 for an unknown id), never the organisation's
 * last console administrator (409, design §9, whatever the door). Their opaque tokens are
 * revoked in the same transaction; their JWTs, which cannot be revoked, are refused at exchange
 * because the person is looked up there.
 */
export async function deletePerson(store: TransactionalStore, orgId: string, id: string, at: number, operator: Operator): Promise<void> {
  await store.inTransaction(async (tx) => {
    const outcome = await tx.deletePersonKeepingAConsoleAdmin(orgId, id, at);
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
