import { optionalTime, time } from '../rows.ts';
import type { SqlDriver, SqlExecutor } from '../sql-driver.ts';
import type { Invitation, InvitationStore } from './store.ts';

interface InvitationRow {
  org_id: string;
  person_id: string;
  token_hash: string;
  reset: boolean | number;
  created_at: number | string;
  expires_at: number | string;
  password_set_at: number | string | null;
}

function toInvitation(row: InvitationRow): Invitation {
  return {
    orgId: row.org_id,
    personId: row.person_id,
    tokenHash: row.token_hash,
    reset: row.reset === true || row.reset === 1,
    createdAt: time(row.created_at),
    expiresAt: time(row.expires_at),
    passwordSetAt: optionalTime(row.password_set_at),
  };
}

/** `password_set_at` as read: a NULL compares with IS NULL, a time with =. */
function asRead(expected: number | null, parameter: string): string {
  return expected === null ? 'password_set_at IS NULL' : `password_set_at = ${parameter}`;
}

/**
 * A GenerationStep (persons/sql.ts): a link whose password is set and that waits only for the
 * person's second factor is closed when their generation is raised by anything else since (a
 * credential deleted, their roles changed, signed out everywhere). It was open lazily, until
 * opened while they held a second factor: a factor added and then removed before anyone opened it
 * (lost phone, the admin deleting it) brought a link back that had done its work, and its next
 * holder reset the person's sign-in again. The redemption that set the password raises the
 * generation itself (the reset's removal) at the very time it records: `<` keeps that one open.
 */
export function closeHalfUsedInvitation(tx: SqlExecutor, orgId: string, personId: string, at: number): Promise<number> {
  return tx.run('DELETE FROM invitations WHERE org_id = $1 AND person_id = $2 AND password_set_at IS NOT NULL AND password_set_at < $3', [orgId, personId, at]);
}

/** The invitation store over either SQL dialect: table invitations, one row per person, going with the person. */
export function sqlInvitationStore(db: SqlDriver): InvitationStore {
  return {
    putInvitation(i): Promise<boolean> {
      return db.transaction(async (tx) => {
        // The earlier link stops working in the same transaction the new one starts in.
        await tx.run('DELETE FROM invitations WHERE org_id = $1 AND person_id = $2', [i.orgId, i.personId]);
        const inserted = await tx.run(
          `INSERT INTO invitations (org_id, person_id, token_hash, reset, created_at, expires_at, password_set_at)
           SELECT $1, $2, $3, $4, $5, $6, NULL FROM persons WHERE org_id = $1 AND id = $2`,
          [i.orgId, i.personId, i.tokenHash, db.dialect === 'postgres' ? i.reset : Number(i.reset), i.createdAt, i.expiresAt],
        );
        return inserted === 1;
      });
    },

    async getInvitationByToken(tokenHash, now): Promise<Invitation | undefined> {
      const [row] = await db.all<InvitationRow>('SELECT * FROM invitations WHERE token_hash = $1 AND expires_at > $2', [tokenHash, now]);
      return row && toInvitation(row);
    },

    async getInvitationOfPerson(orgId, personId, now): Promise<Invitation | undefined> {
      const [row] = await db.all<InvitationRow>('SELECT * FROM invitations WHERE org_id = $1 AND person_id = $2 AND expires_at > $3', [orgId, personId, now]);
      return row && toInvitation(row);
    },

    async setInvitationPasswordSet(tokenHash, expected, at): Promise<boolean> {
      const changed = await db.run(`UPDATE invitations SET password_set_at = $2 WHERE token_hash = $1 AND expires_at > $2 AND ${asRead(expected, '$3')}`, [
        tokenHash,
        at,
        ...(expected === null ? [] : [expected]),
      ]);
      return changed === 1;
    },

    async spendInvitation(tokenHash, expected): Promise<boolean> {
      const params = expected === null ? [tokenHash] : [tokenHash, expected];
      return (await db.run(`DELETE FROM invitations WHERE token_hash = $1 AND ${asRead(expected, '$2')}`, params)) === 1;
    },

    async revokeInvitation(orgId, personId): Promise<boolean> {
      return (await db.run('DELETE FROM invitations WHERE org_id = $1 AND person_id = $2', [orgId, personId])) === 1;
    },

    purgeInvitations(now, limit): Promise<number> {
      return db.run('DELETE FROM invitations WHERE person_id IN (SELECT person_id FROM invitations WHERE expires_at <= $1 LIMIT $2)', [now, limit]);
    },
  };
}
