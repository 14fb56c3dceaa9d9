import { canonicalHandle } from '../../validation/handle.ts';
import { keysetPage } from '../keyset-page.ts';
import type { Page, PageRequest } from '../page.ts';
import { deleteParty, type PartyDeletionStep } from '../party-deletion.ts';
import { type Json, json, time } from '../rows.ts';
import { rethrowAsConflict, type SqlDriver, type SqlExecutor } from '../sql-driver.ts';
import { transactionBoundDriver } from '../transaction-bound.ts';
import { isConsoleAdmin, keepsAnotherConsoleAdmin } from './console-admins.ts';
import type { AccessActor, AccessOutcome, Handle, NewPersonRecord, Person, PersonAccess, PersonStore } from './store.ts';

/**
 * Work that must commit with a raise of a person's generation, such as revoking their opaque
 * tokens: injected where the stores are composed, as the party-deletion steps are.
 */
export type GenerationStep = (tx: SqlExecutor, orgId: string, personId: string, at: number) => Promise<unknown>;

/** Raises the person's generation inside `tx` and runs the steps there; the new generation, or undefined for an unknown id. */
export async function raiseGenerationIn(
  tx: SqlExecutor,
  steps: readonly GenerationStep[],
  orgId: string,
  personId: string,
  at: number,
): Promise<number | undefined> {
  const [row] = await tx.all<{ generation: number | string }>(
    'UPDATE persons SET generation = generation + 1 WHERE org_id = $1 AND id = $2 RETURNING generation',
    [orgId, personId],
  );
  if (!row) return undefined;
  for (const step of steps) await step(tx, orgId, personId, at);
  return Number(row.generation);
}

interface PersonRow {
  id: string;
  org_id: string;
  handles: Json;
  roles: Json;
  console: number | boolean;
  created_at: number;
  generation: number | string;
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
    generation: Number(row.generation),
  };
}

/**
 * The actor's generation now, held for the rest of the transaction (PostgreSQL: FOR SHARE, so a
 * raise of it waits for this change, or this change for the raise); the target's row when the
 * actor changes their own access. undefined for an actor who is gone.
 */
async function actorGeneration(
  tx: SqlExecutor,
  dialect: 'sqlite' | 'postgres',
  orgId: string,
  actor: AccessActor,
  target: PersonRow,
): Promise<number | undefined> {
  if (actor.personId === target.id) return Number(target.generation);
  const share = dialect === 'postgres' ? ' FOR SHARE' : '';
  const [row] = await tx.all<{ generation: number | string }>(`SELECT generation FROM persons WHERE org_id = $1 AND id = $2${share}`, [orgId, actor.personId]);
  return row === undefined ? undefined : Number(row.generation);
}

/** The same roles, in any order. */
function sameRoles(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((role) => b.includes(role));
}

/**
 * The person store over either SQL dialect: tables persons and person_handles.
 * `onDelete` runs inside the transaction that deletes a person (see party-deletion.ts), and
 * `onGenerationRaised` inside the one that raises a person's generation.
 */
export function sqlPersonStore(db: SqlDriver, onDelete: readonly PartyDeletionStep[], onGenerationRaised: readonly GenerationStep[]): PersonStore {
  return {
    async createPerson(person: NewPersonRecord): Promise<void> {
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

    setPersonAccess(orgId: string, id: string, access: PersonAccess, at: number, actor?: AccessActor): Promise<AccessOutcome> {
      return db.transaction(async (tx) => {
        // Every change keeps a console administrator: decided first, under the organisation's lock.
        const keepsAnother = await keepsAnotherConsoleAdmin(db.dialect, tx, orgId, id);
        // The row is locked while the roles are compared, so two changes cannot both see the old ones.
        const lock = db.dialect === 'postgres' ? ' FOR UPDATE' : '';
        const [before] = await tx.all<PersonRow>(`SELECT * FROM persons WHERE org_id = $1 AND id = $2${lock}`, [orgId, id]);
        if (!before) return { kind: 'not_found' };
        if (actor && (await actorGeneration(tx, db.dialect, orgId, actor, before)) !== actor.generation) return { kind: 'actor_ended' };
        const after = { roles: access.roles ?? toPerson(before).roles, console: access.console ?? Boolean(before.console) };
        if (!keepsAnother && isConsoleAdmin(toPerson(before)) && !isConsoleAdmin(after)) return { kind: 'last_console_admin' };
        const rolesChange = access.roles !== undefined && !sameRoles(toPerson(before).roles, access.roles);
        // One statement: a concurrent change of the other field is never overwritten with a stale value.
        const [row] = await tx.all<PersonRow>(
          `UPDATE persons SET roles = COALESCE($3, roles), console = COALESCE($4, console) WHERE org_id = $1 AND id = $2 RETURNING *`,
          [orgId, id, access.roles === undefined ? null : JSON.stringify(access.roles), access.console ?? null],
        );
        if (!row) return { kind: 'not_found' };
        if (!rolesChange) return { kind: 'changed', person: toPerson(row), raised: false };
        const generation = await raiseGenerationIn(tx, onGenerationRaised, orgId, id, at);
        return { kind: 'changed', person: { ...toPerson(row), generation: generation ?? Number(row.generation) }, raised: true };
      });
    },

    raisePersonGeneration(orgId: string, id: string, at: number): Promise<number | undefined> {
      return db.transaction((tx) => raiseGenerationIn(tx, onGenerationRaised, orgId, id, at));
    },

    deletePerson(orgId: string, id: string, at: number): Promise<boolean> {
      return deleteParty(db, 'persons', onDelete, orgId, id, at);
    },

    deletePersonKeepingAConsoleAdmin(orgId: string, id: string, at: number): Promise<'deleted' | 'not_found' | 'last_console_admin'> {
      return db.transaction(async (tx) => {
        const keepsAnother = await keepsAnotherConsoleAdmin(db.dialect, tx, orgId, id);
        const [row] = await tx.all<PersonRow>('SELECT * FROM persons WHERE org_id = $1 AND id = $2', [orgId, id]);
        if (!row) return 'not_found';
        if (!keepsAnother && isConsoleAdmin(toPerson(row))) return 'last_console_admin';
        // The deletion's own transaction becomes a savepoint of this one (transaction-bound.ts).
        return (await deleteParty(transactionBoundDriver(db.dialect, tx), 'persons', onDelete, orgId, id, at)) ? 'deleted' : 'not_found';
      });
    },
  };
}
