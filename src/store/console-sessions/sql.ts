import { json, time } from '../rows.ts';
import type { SqlDriver } from '../sql-driver.ts';
import type { ConsoleSession, ConsoleSessionStage, ConsoleSessionStore } from './store.ts';

interface SessionRow {
  id_hash: string;
  org_id: string;
  person_id: string;
  stage: string;
  ticket_hash: string | null;
  amr: string | object;
  generation: number | string;
  auth_time: number | string;
  created_at: number | string;
  last_seen_at: number | string;
  expires_at: number | string;
}

function toSession(row: SessionRow): ConsoleSession {
  return {
    idHash: row.id_hash,
    orgId: row.org_id,
    personId: row.person_id,
    stage: row.stage as ConsoleSessionStage,
    ticketHash: row.ticket_hash,
    amr: json(row.amr),
    generation: Number(row.generation),
    authTime: time(row.auth_time),
    createdAt: time(row.created_at),
    lastSeenAt: time(row.last_seen_at),
    expiresAt: time(row.expires_at),
  };
}

/** The console session store over either SQL dialect: table console_sessions. */
export function sqlConsoleSessionStore(db: SqlDriver): ConsoleSessionStore {
  return {
    async createConsoleSession(s): Promise<void> {
      // The handle column of release 10 is left NULL: the ticket names the handle now.
      await db.run(
        `INSERT INTO console_sessions (id_hash, org_id, person_id, stage, ticket_hash, amr, generation, auth_time, created_at, last_seen_at, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
        [s.idHash, s.orgId, s.personId, s.stage, s.ticketHash, JSON.stringify(s.amr), s.generation, s.authTime, s.createdAt, s.lastSeenAt, s.expiresAt],
      );
    },

    async getConsoleSession(idHash, now): Promise<ConsoleSession | undefined> {
      const [row] = await db.all<SessionRow>('SELECT * FROM console_sessions WHERE id_hash = $1 AND expires_at > $2', [idHash, now]);
      return row ? toSession(row) : undefined;
    },

    async touchConsoleSession(idHash, at): Promise<void> {
      await db.run('UPDATE console_sessions SET last_seen_at = $2 WHERE id_hash = $1', [idHash, at]);
    },

    async setConsoleSessionGeneration(idHash, generation): Promise<boolean> {
      return (await db.run('UPDATE console_sessions SET generation = $2 WHERE id_hash = $1', [idHash, generation])) === 1;
    },

    async reauthenticateConsoleSession(idHash, at): Promise<boolean> {
      return (await db.run('UPDATE console_sessions SET auth_time = $2, last_seen_at = $2 WHERE id_hash = $1', [idHash, at])) === 1;
    },

    async deleteConsoleSession(idHash): Promise<boolean> {
      return (await db.run('DELETE FROM console_sessions WHERE id_hash = $1', [idHash])) > 0;
    },

    deleteConsoleSessionsOfPerson(orgId, personId): Promise<number> {
      return db.run('DELETE FROM console_sessions WHERE org_id = $1 AND person_id = $2', [orgId, personId]);
    },

    purgeConsoleSessions(now, idleBefore, limit): Promise<number> {
      return db.run(
        'DELETE FROM console_sessions WHERE id_hash IN (SELECT id_hash FROM console_sessions WHERE expires_at <= $1 OR last_seen_at < $2 LIMIT $3)',
        [now, idleBefore, limit],
      );
    },
  };
}
