import { type Json, json, time } from '../rows.ts';
import type { SqlDriver } from '../sql-driver.ts';
import type { TotpEnrolment, TotpEnrolmentStore } from './store.ts';

interface EnrolmentRow {
  id: string;
  org_id: string;
  person_id: string;
  label: string | null;
  params: Json;
  secret: Json;
  created_at: number | string;
  expires_at: number | string;
}

function toEnrolment(row: EnrolmentRow): TotpEnrolment {
  return {
    id: row.id,
    orgId: row.org_id,
    personId: row.person_id,
    label: row.label,
    params: json(row.params),
    secret: json(row.secret),
    createdAt: time(row.created_at),
    expiresAt: time(row.expires_at),
  };
}

/** The pending TOTP enrolment store over either SQL dialect: table totp_enrolments. */
export function sqlTotpEnrolmentStore(db: SqlDriver): TotpEnrolmentStore {
  return {
    async createTotpEnrolment(e): Promise<boolean> {
      // Inserted only for a person of this organisation: one statement, no check-then-act.
      const inserted = await db.run(
        `INSERT INTO totp_enrolments (id, org_id, person_id, label, params, secret, created_at, expires_at)
         SELECT $1, $2, $3, $4, $5, $6, $7, $8 FROM persons WHERE org_id = $2 AND id = $3`,
        [e.id, e.orgId, e.personId, e.label, JSON.stringify(e.params), JSON.stringify(e.secret), e.createdAt, e.expiresAt],
      );
      return inserted === 1;
    },

    async getTotpEnrolment(orgId, personId, id, now): Promise<TotpEnrolment | undefined> {
      const [row] = await db.all<EnrolmentRow>('SELECT * FROM totp_enrolments WHERE org_id = $1 AND person_id = $2 AND id = $3 AND expires_at > $4', [
        orgId,
        personId,
        id,
        now,
      ]);
      return row && toEnrolment(row);
    },

    async spendTotpEnrolment(orgId, personId, id): Promise<boolean> {
      return (await db.run('DELETE FROM totp_enrolments WHERE org_id = $1 AND person_id = $2 AND id = $3', [orgId, personId, id])) === 1;
    },

    purgeExpiredTotpEnrolments(now, limit): Promise<number> {
      return db.run('DELETE FROM totp_enrolments WHERE id IN (SELECT id FROM totp_enrolments WHERE expires_at <= $1 LIMIT $2)', [now, limit]);
    },
  };
}
