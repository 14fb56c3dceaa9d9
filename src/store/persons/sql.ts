import { canonicalHandle } from '../../validation/handle.ts';
import { keysetPage } from '../keyset-page.ts';
import { deleteParty, type PartyDeletionStep } from '../party-deletion.ts';
import { type Json, json, time } from '../rows.ts';
import { rethrowAsConflict, type SqlDriver } from '../sql-driver.ts';
import type { Page, PageRequest } from '../types.ts';
import type { Handle, Person, PersonAccess, PersonStore } from './store.ts';

interface PersonRow {
  id: string;
  org_id: string;
  handles: Json;
  roles: Json;
  console: number | boolean;
  created_at: number;
}

const conflictSubjects = { person_handles: 'person_handle' } as const;

function toPerson(row: PersonRow): Person {
  return {
    id: row.id,
    orgId: row.org_id,
    handles: json(row.handles),
    roles: json(row.roles),
    console: Boolean(row.console),
    createdAt: time(row.created_at),
  };
}

/**
 * The person store over either SQL dialect: tables persons and person_handles.
 * `onDelete` runs inside the transaction that deletes a person (see party-deletion.ts).
 */
export function sqlPersonStore(db: SqlDriver, onDelete: readonly PartyDeletionStep[]): PersonStore {
  return {
    async createPerson(person: Person): Promise<void> {
      const handles = person.handles.map(canonicalHandle);
      await db.transaction(async (tx) => {
        await tx.run('INSERT INTO persons (id, org_id, handles, roles, console, created_at) VALUES ($1, $2, $3, $4, $5, $6)', [
          person.id,
          person.orgId,
          JSON.stringify(handles),
          JSON.stringify(person.roles),
          person.console,
          person.createdAt,
        ]);
        // One insert per handle, so a refusal names exactly the handle that is taken.
        for (const handle of handles) {
          await tx
            .run('INSERT INTO person_handles (org_id, type, value, person_id) VALUES ($1, $2, $3, $4)', [person.orgId, handle.type, handle.value, person.id])
            .catch((error) => rethrowAsConflict(error, conflictSubjects, handle));
        }
      });
    },

    async getPerson(orgId: string, id: string): Promise<Person | undefined> {
      const [row] = await db.all<PersonRow>('SELECT * FROM persons WHERE org_id = $1 AND id = $2', [orgId, id]);
      return row && toPerson(row);
    },

    async findPersonByHandle(orgId: string, given: Handle): Promise<Person | undefined> {
      const handle = canonicalHandle(given);
      const [row] = await db.all<PersonRow>(
        `SELECT p.* FROM person_handles h JOIN persons p ON p.id = h.person_id
         WHERE h.org_id = $1 AND h.type = $2 AND h.value = $3`,
        [orgId, handle.type, handle.value],
      );
      return row && toPerson(row);
    },

    listPersons(orgId: string, page: PageRequest): Promise<Page<Person>> {
      return keysetPage(db, 'persons', orgId, page, toPerson);
    },

    async setPersonAccess(orgId: string, id: string, access: PersonAccess): Promise<Person | undefined> {
      // One statement: a concurrent change of the other field is never overwritten with a stale value.
      const [row] = await db.all<PersonRow>(
        `UPDATE persons SET roles = COALESCE($3, roles), console = COALESCE($4, console) WHERE org_id = $1 AND id = $2 RETURNING *`,
        [orgId, id, access.roles === undefined ? null : JSON.stringify(access.roles), access.console ?? null],
      );
      return row && toPerson(row);
    },

    deletePerson(orgId: string, id: string, at: number): Promise<boolean> {
      return deleteParty(db, 'persons', onDelete, orgId, id, at);
    },
  };
}
