import { type Json, json, time } from '../rows.ts';
import type { SqlDriver } from '../sql-driver.ts';
import type { SecondFactorTicket, SecondFactorTicketStore } from './store.ts';

interface TicketRow {
  id_hash: string;
  org_id: string;
  person_id: string;
  handle: Json;
  amr: Json;
  generation: number | string;
  attempts: number | string;
  created_at: number | string;
  expires_at: number | string;
}

function toTicket(row: TicketRow): SecondFactorTicket {
  return {
    idHash: row.id_hash,
    orgId: row.org_id,
    personId: row.person_id,
    handle: json(row.handle),
    amr: json(row.amr),
    generation: Number(row.generation),
    attempts: Number(row.attempts),
    createdAt: time(row.created_at),
    expiresAt: time(row.expires_at),
  };
}

/** The second-factor ticket store over either SQL dialect: table second_factor_tickets, rows going with their person. */
export function sqlSecondFactorTicketStore(db: SqlDriver): SecondFactorTicketStore {
  return {
    async createSecondFactorTicket(t): Promise<boolean> {
      try {
        // Inserted only if the person is of this organisation: one statement, as credentials are
        // (and, like theirs, a savepoint inside a larger transaction, so that the check below runs).
        const inserted = await db.transaction((tx) =>
          tx.run(
            `INSERT INTO second_factor_tickets (id_hash, org_id, person_id, handle, amr, generation, attempts, created_at, expires_at)
             SELECT $1, $2, $3, $4, $5, $6, 0, $7, $8 FROM persons WHERE org_id = $2 AND id = $3`,
            [t.idHash, t.orgId, t.personId, JSON.stringify(t.handle), JSON.stringify(t.amr), t.generation, t.createdAt, t.expiresAt],
          ),
        );
        return inserted === 1;
      } catch (error) {
        // The person was deleted between the SELECT and the foreign key check: gone, not a fault.
        const [found] = await db.all('SELECT 1 AS found FROM persons WHERE org_id = $1 AND id = $2', [t.orgId, t.personId]);
        if (!found) return false;
        throw error;
      }
    },

    async getSecondFactorTicket(orgId, idHash, now, maxAttempts): Promise<SecondFactorTicket | undefined> {
      const [row] = await db.all<TicketRow>('SELECT * FROM second_factor_tickets WHERE org_id = $1 AND id_hash = $2 AND expires_at > $3 AND attempts < $4', [
        orgId,
        idHash,
        now,
        maxAttempts,
      ]);
      return row && toTicket(row);
    },

    async countSecondFactorAttempt(orgId, idHash, now, maxAttempts): Promise<SecondFactorTicket | undefined> {
      const [row] = await db.all<TicketRow>(
        `UPDATE second_factor_tickets SET attempts = attempts + 1
         WHERE org_id = $1 AND id_hash = $2 AND expires_at > $3 AND attempts < $4 RETURNING *`,
        [orgId, idHash, now, maxAttempts],
      );
      return row && toTicket(row);
    },

    async spendSecondFactorTicket(orgId, idHash): Promise<boolean> {
      return (await db.run('DELETE FROM second_factor_tickets WHERE org_id = $1 AND id_hash = $2', [orgId, idHash])) === 1;
    },

    purgeSecondFactorTickets(now, limit): Promise<number> {
      return db.run('DELETE FROM second_factor_tickets WHERE id_hash IN (SELECT id_hash FROM second_factor_tickets WHERE expires_at <= $1 LIMIT $2)', [
        now,
        limit,
      ]);
    },
  };
}
