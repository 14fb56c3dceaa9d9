import { ConflictError } from '../errors.ts';
import { keysetPage } from '../keyset-page.ts';
import { passkeyCredentialIdSql } from '../migrations/dialect.ts';
import type { Page, PageRequest } from '../page.ts';
import { type Json, json, optionalTime, time } from '../rows.ts';
import type { SqlDriver, SqlExecutor } from '../sql-driver.ts';
import type { Credential, CredentialData, CredentialStore } from './store.ts';

interface CredentialRow {
  id: string;
  org_id: string;
  person_id: string;
  type: string;
  label: string | null;
  params: Json;
  secret: Json | null;
  version: number | string;
  last_used: number | string | null;
  created_at: number | string;
}

function toCredential(row: CredentialRow): Credential {
  return {
    id: row.id,
    orgId: row.org_id,
    personId: row.person_id,
    type: row.type,
    label: row.label,
    params: json(row.params),
    secret: row.secret === null ? null : json(row.secret),
    version: Number(row.version),
    lastUsed: optionalTime(row.last_used),
    createdAt: time(row.created_at),
  };
}

/** A JSON column value; a null secret is SQL NULL, not the JSON text "null". */
function jsonParam(value: object | null): string | null {
  return value === null ? null : JSON.stringify(value);
}

/**
 * Holds the person's row for the rest of the transaction, so that decisions about what they hold
 * are made one after another (SQLite's transactions are serial already); false for no such person.
 */
async function lockPerson(tx: SqlExecutor, dialect: 'sqlite' | 'postgres', orgId: string, personId: string): Promise<boolean> {
  const lock = dialect === 'postgres' ? ' FOR UPDATE' : '';
  return (await tx.all(`SELECT id FROM persons WHERE org_id = $1 AND id = $2${lock}`, [orgId, personId])).length > 0;
}

/** Whether the person holds a credential of one of `types`, other than `except`. */
async function holdsOneOf(tx: SqlExecutor, orgId: string, personId: string, types: readonly string[], except = ''): Promise<boolean> {
  const placeholders = types.map((_, i) => `$${i + 4}`).join(', ');
  const rows = await tx.all(`SELECT 1 AS found FROM credentials WHERE org_id = $1 AND person_id = $2 AND id <> $3 AND type IN (${placeholders}) LIMIT 1`, [
    orgId,
    personId,
    except,
    ...types,
  ]);
  return rows.length > 0;
}

/** The WebAuthn credential id of a public-key credential, which the organisation may hold once; undefined for any other. */
function passkeyCredentialId(c: Pick<Credential, 'type' | 'params'>): string | undefined {
  const id = c.params.webauthn_credential_id;
  return c.type === 'public-key' && typeof id === 'string' ? id : undefined;
}

/**
 * Whether a public-key credential of the organisation, of any person, has this credential id:
 * one look-up in migration 14's unique index, the copies an earlier release let in included.
 */
async function passkeyTaken(tx: SqlExecutor, dialect: 'sqlite' | 'postgres', orgId: string, credentialId: string): Promise<boolean> {
  const rows = await tx.all(
    `SELECT 1 AS found FROM credentials WHERE org_id = $1 AND type = 'public-key' AND ${passkeyCredentialIdSql(dialect)} = $2 LIMIT 1`,
    [orgId, credentialId],
  );
  return rows.length > 0;
}

/** Work that must commit with the deletion of a credential (raising its person's generation), injected where the stores are composed. */
export type CredentialDeletionStep = (tx: SqlExecutor, orgId: string, personId: string, at: number) => Promise<unknown>;

/**
 * The credential store over either SQL dialect: table credentials. Its person_id references
 * persons with ON DELETE CASCADE, so deleting a person deletes their credentials in the same
 * statement, and a credential cannot be inserted for a person being deleted. `onDelete` runs
 * inside the transaction that deletes a credential.
 */
export function sqlCredentialStore(db: SqlDriver, onDelete: readonly CredentialDeletionStep[]): CredentialStore {
  const personExists = async (orgId: string, personId: string) =>
    (await db.all('SELECT 1 AS found FROM persons WHERE org_id = $1 AND id = $2', [orgId, personId])).length > 0;

  /** Refuses a passkey the organisation holds already (ConflictError 'passkey'), inside the inserting transaction. */
  const refuseTakenPasskey = async (tx: SqlExecutor, c: Pick<Credential, 'orgId' | 'type' | 'params'>) => {
    const credentialId = passkeyCredentialId(c);
    if (credentialId !== undefined && (await passkeyTaken(tx, db.dialect, c.orgId, credentialId))) throw new ConflictError('passkey');
  };

  /**
   * After a failed insert: a concurrent insert of the same passkey committed between the look-up
   * and ours, and the unique index refused ours (PostgreSQL; SQLite's writers are serial). Read
   * again, outside the rolled-back savepoint, that is a ConflictError; anything else is not.
   */
  const rethrowTakenPasskey = async (error: unknown, c: Pick<Credential, 'orgId' | 'type' | 'params'>): Promise<never> => {
    if (error instanceof ConflictError) throw error;
    const credentialId = passkeyCredentialId(c);
    if (credentialId !== undefined && (await passkeyTaken(db, db.dialect, c.orgId, credentialId))) throw new ConflictError('passkey', undefined, error);
    throw error;
  };

  return {
    async createCredential(c): Promise<boolean> {
      try {
        // Inserted only if the person is of this organisation: one statement, no check-then-act.
        // In a transaction of its own, so that inside a larger one (Store.inTransaction) it is a
        // savepoint: on PostgreSQL a failed statement outside one aborts the whole transaction,
        // and the SELECTs below would fail with it (25P02) instead of reading "no such person".
        const inserted = await db.transaction(async (tx) => {
          await refuseTakenPasskey(tx, c);
          return tx.run(
            `INSERT INTO credentials (id, org_id, person_id, type, label, params, secret, version, last_used, created_at)
             SELECT $1, $2, $3, $4, $5, $6, $7, 0, NULL, $8 FROM persons WHERE org_id = $2 AND id = $3`,
            [c.id, c.orgId, c.personId, c.type, c.label, JSON.stringify(c.params), jsonParam(c.secret), c.createdAt],
          );
        });
        return inserted === 1;
      } catch (error) {
        // The person was deleted between the SELECT and the foreign key check: not found, not a fault.
        if (!(error instanceof ConflictError) && !(await personExists(c.orgId, c.personId))) return false;
        return rethrowTakenPasskey(error, c);
      }
    },

    async createCredentialUnlessHolding(c, types): Promise<'created' | 'holding' | 'no_person'> {
      try {
        return await db.transaction(async (tx) => {
          if (!(await lockPerson(tx, db.dialect, c.orgId, c.personId))) return 'no_person';
          if (await holdsOneOf(tx, c.orgId, c.personId, types)) return 'holding';
          await refuseTakenPasskey(tx, c);
          await tx.run(
            `INSERT INTO credentials (id, org_id, person_id, type, label, params, secret, version, last_used, created_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, 0, NULL, $8)`,
            [c.id, c.orgId, c.personId, c.type, c.label, JSON.stringify(c.params), jsonParam(c.secret), c.createdAt],
          );
          return 'created';
        });
      } catch (error) {
        return rethrowTakenPasskey(error, c);
      }
    },

    async getCredential(orgId, personId, id): Promise<Credential | undefined> {
      const [row] = await db.all<CredentialRow>('SELECT * FROM credentials WHERE org_id = $1 AND person_id = $2 AND id = $3', [orgId, personId, id]);
      return row && toCredential(row);
    },

    listCredentials(orgId, personId, page: PageRequest): Promise<Page<Credential>> {
      return keysetPage<CredentialRow, Credential>(db, 'credentials', orgId, page, toCredential, { column: 'person_id', value: personId });
    },

    async listCredentialsOfType(orgId, personId, type): Promise<Credential[]> {
      const rows = await db.all<CredentialRow>('SELECT * FROM credentials WHERE org_id = $1 AND person_id = $2 AND type = $3 ORDER BY id', [
        orgId,
        personId,
        type,
      ]);
      return rows.map(toCredential);
    },

    async listOrganizationCredentialsOfType(orgId, type): Promise<Credential[]> {
      const rows = await db.all<CredentialRow>('SELECT * FROM credentials WHERE org_id = $1 AND type = $2 ORDER BY person_id, id', [orgId, type]);
      return rows.map(toCredential);
    },

    deleteCredential(orgId, personId, id, at): Promise<boolean> {
      return db.transaction(async (tx) => {
        // The person's row first, as a deletion of the person takes it (then its credentials by
        // the cascade): in the other order the two deadlocked on PostgreSQL.
        if (!(await lockPerson(tx, db.dialect, orgId, personId))) return false;
        if ((await tx.run('DELETE FROM credentials WHERE org_id = $1 AND person_id = $2 AND id = $3', [orgId, personId, id])) !== 1) return false;
        for (const step of onDelete) await step(tx, orgId, personId, at);
        return true;
      });
    },

    deleteCredentialKeepingOneOf(orgId, personId, id, types, at): Promise<'deleted' | 'last' | 'not_found'> {
      return db.transaction(async (tx) => {
        if (!(await lockPerson(tx, db.dialect, orgId, personId))) return 'not_found';
        const [self] = await tx.all<{ type: string }>('SELECT type FROM credentials WHERE org_id = $1 AND person_id = $2 AND id = $3', [orgId, personId, id]);
        if (!self) return 'not_found';
        if (types.includes(self.type) && !(await holdsOneOf(tx, orgId, personId, types, id))) return 'last';
        await tx.run('DELETE FROM credentials WHERE org_id = $1 AND person_id = $2 AND id = $3', [orgId, personId, id]);
        for (const step of onDelete) await step(tx, orgId, personId, at);
        return 'deleted';
      });
    },

    replaceCredentialsOfPerson(c, at): Promise<number | undefined> {
      return db.transaction(async (tx) => {
        if (!(await lockPerson(tx, db.dialect, c.orgId, c.personId))) return undefined;
        const removed = await tx.run('DELETE FROM credentials WHERE org_id = $1 AND person_id = $2', [c.orgId, c.personId]);
        await tx.run(
          `INSERT INTO credentials (id, org_id, person_id, type, label, params, secret, version, last_used, created_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, 0, NULL, $8)`,
          [c.id, c.orgId, c.personId, c.type, c.label, JSON.stringify(c.params), jsonParam(c.secret), c.createdAt],
        );
        if (removed > 0) for (const step of onDelete) await step(tx, c.orgId, c.personId, at);
        return removed;
      });
    },

    async touchCredentialLastUsed(orgId, id, at): Promise<boolean> {
      return (await db.run('UPDATE credentials SET last_used = $3 WHERE org_id = $1 AND id = $2', [orgId, id, at])) === 1;
    },

    async updateCredentialIf(orgId, id, expectedVersion, next: CredentialData): Promise<boolean> {
      const changed = await db.run('UPDATE credentials SET params = $4, secret = $5, version = version + 1 WHERE org_id = $1 AND id = $2 AND version = $3', [
        orgId,
        id,
        expectedVersion,
        JSON.stringify(next.params),
        jsonParam(next.secret),
      ]);
      return changed === 1;
    },
  };
}
