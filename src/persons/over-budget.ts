import { isOverBudget, storedPasswordHash } from '../methods/password/index.ts';
import type { CredentialStore } from '../store/credentials/store.ts';
import type { PersonStore } from '../store/persons/store.ts';
import type { Page, PageRequest, Person } from '../store/types.ts';

/** The cursors of the filtered list are its own: one of the whole list is refused by it, and the other way round. */
export const OVER_BUDGET_LIST = 'persons_over_budget';

/**
 * The persons with a password hash over the cost ceilings, paged like every list. The
 * ceilings are in code and change between releases, so which stored hashes are over them is
 * decided here, from each hash's parameters, rather than stored: this reads every password
 * credential of the organisation (a listing for the reset after an upgrade, not for polling).
 */
export async function overBudgetPersons(store: PersonStore & CredentialStore, orgId: string, { position, limit }: PageRequest): Promise<Page<Person>> {
  const credentials = await store.listOrganizationCredentialsOfType(orgId, 'password');
  const ids = [...new Set(credentials.filter((credential) => isOverBudget(storedPasswordHash(credential))).map((credential) => credential.personId))].sort();
  const firstAfter = (id: string) => indexWhere(ids, (candidate) => candidate > id);
  let start: number;
  let end: number;
  switch (position.kind) {
    case 'first':
      [start, end] = [0, Math.min(limit, ids.length)];
      break;
    case 'after':
      start = firstAfter(position.id);
      end = Math.min(start + limit, ids.length);
      break;
    case 'before':
      end = indexWhere(ids, (candidate) => candidate >= position.id);
      start = Math.max(0, end - limit);
      break;
    case 'last':
      [start, end] = [Math.max(0, ids.length - limit), ids.length];
      break;
  }
  const persons = await Promise.all(ids.slice(start, end).map((id) => store.getPerson(orgId, id)));
  return {
    // A person deleted since the read is simply not listed.
    items: persons.filter((person): person is Person => person !== undefined),
    hasPrevious: start > 0,
    hasNext: end < ids.length,
    ...(position.kind === 'first' ? { totalCount: ids.length } : {}),
  };
}

function indexWhere(ids: readonly string[], holds: (id: string) => boolean): number {
  const at = ids.findIndex(holds);
  return at === -1 ? ids.length : at;
}
