import { optionalTime, time } from '../rows.ts';
import { type SqlDriver, UniqueViolation } from '../sql-driver.ts';
import type { AttemptTaken, EmailVerification, EmailVerificationStore, VerificationCloseReason, VerificationState } from './store.ts';

interface VerificationRow {
  id: string;
  org_id: string;
  connection_id: string;
  identity_id: string;
  email_sent_to: string;
  code_hash: string;
  created_at: number | string;
  expires_at: number | string;
  attempts: number | string;
  state: string;
  closed_reason: string | null;
  ended_at: number | string | null;
}

function toVerification(row: VerificationRow): EmailVerification {
  return {
    id: row.id,
    orgId: row.org_id,
    connectionId: row.connection_id,
    identityId: row.identity_id,
    emailSentTo: row.email_sent_to,
    codeHash: row.code_hash,
    createdAt: time(row.created_at),
    expiresAt: time(row.expires_at),
    attempts: Number(row.attempts),
    state: row.state as VerificationState,
    closedReason: row.closed_reason as VerificationCloseReason | null,
    endedAt: optionalTime(row.ended_at),
  };
}

/** A unique-index refusal despite the lock (a replica of an older version, say) is retried this often. */
const CREATE_TRIES = 3;

/** The email verification store over either SQL dialect: table email_verifications. */
export function sqlEmailVerificationStore(db: SqlDriver): EmailVerificationStore {
  return {
    async createEmailVerification(v): Promise<{ replaced: string[] }> {
      for (let attempt = 1; ; attempt++) {
        try {
          return await db.transaction(async (tx) => {
            // Initiates for one identity take turns on PostgreSQL (SQLite's transactions already
            // do): without it, concurrent ones all find nothing to replace and all but one insert
            // fails on the one-open index, again and again under load.
            if (db.dialect === 'postgres') {
              await tx.all('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`evf:${v.orgId}:${v.connectionId}:${v.identityId}`]);
            }
            const replaced = await tx.all<{ id: string }>(
              `UPDATE email_verifications SET state = 'closed', closed_reason = 'replaced', ended_at = $4
               WHERE org_id = $1 AND connection_id = $2 AND identity_id = $3 AND state = 'open' RETURNING id`,
              [v.orgId, v.connectionId, v.identityId, v.createdAt],
            );
            await tx.run(
              `INSERT INTO email_verifications (id, org_id, connection_id, identity_id, email_sent_to, code_hash, created_at, expires_at, attempts, state, closed_reason, ended_at)
               VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 0, 'open', NULL, NULL)`,
              [v.id, v.orgId, v.connectionId, v.identityId, v.emailSentTo, v.codeHash, v.createdAt, v.expiresAt],
            );
            return { replaced: replaced.map((row) => row.id) };
          });
        } catch (error) {
          // The partial unique index (one open per identity) refused us: another initiate won the
          // race. Trying again replaces that one, as a later initiate should.
          if (!(error instanceof UniqueViolation) || attempt >= CREATE_TRIES) throw error;
        }
      }
    },

    async getEmailVerification(orgId, id): Promise<EmailVerification | undefined> {
      const [row] = await db.all<VerificationRow>('SELECT * FROM email_verifications WHERE org_id = $1 AND id = $2', [orgId, id]);
      return row && toVerification(row);
    },

    async takeEmailVerificationAttemptIf(orgId, id, now, maxAttempts): Promise<AttemptTaken> {
      // One statement: the condition and the increment cannot be separated by another caller.
      const [row] = await db.all<{ attempts: number | string }>(
        `UPDATE email_verifications SET attempts = attempts + 1
         WHERE org_id = $1 AND id = $2 AND state = 'open' AND expires_at > $3 AND attempts < $4
         RETURNING attempts`,
        [orgId, id, now, maxAttempts],
      );
      return row ? { taken: true, attempts: Number(row.attempts) } : { taken: false };
    },

    async giveBackEmailVerificationAttempt(orgId, id): Promise<void> {
      await db.run(`UPDATE email_verifications SET attempts = attempts - 1 WHERE org_id = $1 AND id = $2 AND state = 'open' AND attempts > 0`, [orgId, id]);
    },

    async spendEmailVerificationIf(orgId, id, now): Promise<EmailVerification | undefined> {
      const [row] = await db.all<VerificationRow>(
        `UPDATE email_verifications SET state = 'spent', ended_at = $3
         WHERE org_id = $1 AND id = $2 AND state = 'open' AND expires_at > $3 RETURNING *`,
        [orgId, id, now],
      );
      return row && toVerification(row);
    },

    async closeEmailVerification(orgId, id, reason, now): Promise<boolean> {
      const changed = await db.run(
        `UPDATE email_verifications SET state = 'closed', closed_reason = $3, ended_at = $4
         WHERE org_id = $1 AND id = $2 AND state = 'open'`,
        [orgId, id, reason, now],
      );
      return changed === 1;
    },

    purgeEmailVerifications(before, limit): Promise<number> {
      return db.run('DELETE FROM email_verifications WHERE id IN (SELECT id FROM email_verifications WHERE expires_at < $1 LIMIT $2)', [before, limit]);
    },
  };
}
