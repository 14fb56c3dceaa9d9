import { time } from '../rows.ts';
import type { SqlDriver } from '../sql-driver.ts';
import type { WebAuthnChallenge, WebAuthnChallengePurpose, WebAuthnChallengeStore } from './store.ts';

interface ChallengeRow {
  id: string;
  org_id: string;
  purpose: string;
  person_id: string | null;
  subject: string;
  challenge: string;
  created_at: number | string;
  expires_at: number | string;
}

function toChallenge(row: ChallengeRow): WebAuthnChallenge {
  return {
    id: row.id,
    orgId: row.org_id,
    purpose: row.purpose as WebAuthnChallengePurpose,
    personId: row.person_id,
    subject: row.subject,
    challenge: row.challenge,
    createdAt: time(row.created_at),
    expiresAt: time(row.expires_at),
  };
}

/** The WebAuthn challenge store over either SQL dialect: table webauthn_challenges. */
export function sqlWebAuthnChallengeStore(db: SqlDriver): WebAuthnChallengeStore {
  return {
    async createWebAuthnChallenge(c): Promise<void> {
      await db.run(
        `INSERT INTO webauthn_challenges (id, org_id, purpose, person_id, subject, challenge, created_at, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
        [c.id, c.orgId, c.purpose, c.personId, c.subject, c.challenge, c.createdAt, c.expiresAt],
      );
    },

    async spendWebAuthnChallenge(orgId, id, purpose, now, personId): Promise<WebAuthnChallenge | undefined> {
      // Deleted whether or not it has expired: an expired challenge is spent all the same. The
      // person is part of the condition, not checked afterwards, so a mismatch deletes nothing.
      const where = 'org_id = $1 AND id = $2 AND purpose = $3';
      const [row] =
        personId === undefined
          ? await db.all<ChallengeRow>(`DELETE FROM webauthn_challenges WHERE ${where} RETURNING *`, [orgId, id, purpose])
          : await db.all<ChallengeRow>(`DELETE FROM webauthn_challenges WHERE ${where} AND person_id = $4 RETURNING *`, [orgId, id, purpose, personId]);
      if (!row) return undefined;
      const challenge = toChallenge(row);
      return challenge.expiresAt > now ? challenge : undefined;
    },

    purgeExpiredWebAuthnChallenges(now, limit): Promise<number> {
      return db.run('DELETE FROM webauthn_challenges WHERE id IN (SELECT id FROM webauthn_challenges WHERE expires_at <= $1 LIMIT $2)', [now, limit]);
    },
  };
}
