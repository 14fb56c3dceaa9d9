import type { Handle } from '../../validation/handle.ts';
import type { Page, PageRequest } from '../page.ts';

export { type Handle, type HandleType, handleTypes } from '../../validation/handle.ts';

export const personRoles = ['admin', 'verifier'] as const;
export type PersonRole = (typeof personRoles)[number];

export interface Person {
  id: string;
  orgId: string;
  handles: Handle[];
  roles: PersonRole[];
  console: boolean;
  createdAt: number;
  /**
   * Raised by the events that must end what the person signed in to before (design §5): sign out
   * everywhere, a role change, a credential deletion. Carried in their JWTs (`gen`) and console
   * sessions; one of an earlier generation is refused wherever it is presented.
   */
  generation: number;
}

/** Who makes a change through a console session of theirs: the person, at the generation of that session. */
export interface AccessActor {
  personId: string;
  generation: number;
}

export type AccessOutcome =
  | { kind: 'changed'; person: Person; raised: boolean }
  | { kind: 'not_found' }
  | { kind: 'actor_ended' }
  /** The change would have left the organisation without a console administrator (nothing changed). */
  | { kind: 'last_console_admin' };

/** A person as created: at generation 0. */
export type NewPersonRecord = Omit<Person, 'generation'>;

/** What may change of a person after creation: their roles and console membership. */
export type PersonAccess = Partial<Pick<Person, 'roles' | 'console'>>;

/**
 * Persons of an organisation and their handles. Handles are kept and compared in their
 * canonical form (validation/handle.ts, canonicalHandle: email addresses NFC and lower-cased),
 * whatever spelling the caller passes: a handle taken in one spelling is taken in all
 * (ConflictError 'person_handle' naming it), and a look-up in any spelling finds its person.
 */
export interface PersonStore {
  createPerson(person: NewPersonRecord): Promise<void>;
  getPerson(orgId: string, id: string): Promise<Person | undefined>;
  /** Finds the person holding the handle, compared in canonical form. */
  findPersonByHandle(orgId: string, handle: Handle): Promise<Person | undefined>;
  listPersons(orgId: string, page: PageRequest): Promise<Page<Person>>;
  /**
   * Sets the fields given, leaving the others; when the roles change, the person's generation is
   * raised in the same transaction (`raised`). With an `actor`, the person whose console session
   * asks for it, the change is made only while the actor is still at that generation (else
   * 'actor_ended', nothing changed): a session whose person was demoted meanwhile cannot undo it.
   * Whoever asks, the organisation keeps a console administrator (admin role and console
   * membership): a change that would take away the last is 'last_console_admin', nothing
   * changed, decided under the organisation's lock so that two changes taking away one
   * administrator each (the console's, the API's, the CLI's) cannot both pass.
   */
  setPersonAccess(orgId: string, id: string, access: PersonAccess, at: number, actor?: AccessActor): Promise<AccessOutcome>;
  /**
   * Raises the person's generation, and revokes in the same transaction every opaque token issued
   * to or for them (with the tokens exchanged from those): what they signed in to before ends.
   * The new generation, or undefined for an unknown id.
   */
  raisePersonGeneration(orgId: string, id: string, at: number): Promise<number | undefined>;
  /**
   * Deletes the person (their handles go with them) and revokes, in the same transaction,
   * every opaque token issued to or for them with every token exchanged from those, at `at`.
   * Either both happen or neither does. Returns false, changing nothing, for an unknown id.
   */
  deletePerson(orgId: string, id: string, at: number): Promise<boolean>;
  /**
   * deletePerson for every door that administers persons (API, console, CLI): never the
   * organisation's last console administrator, decided as setPersonAccess decides it.
   */
  deletePersonKeepingAConsoleAdmin(orgId: string, id: string, at: number): Promise<'deleted' | 'not_found' | 'last_console_admin'>;
}
