import { time } from '../rows.ts';
import type { SqlDriver, SqlExecutor } from '../sql-driver.ts';
import type { AttemptRecord, AuthnAttemptStore, PersonAttemptRecord } from './store.ts';

/** The attempt store over either SQL dialect: table authn_attempts. */
export function sqlAuthnAttemptStore(db: SqlDriver): AuthnAttemptStore {
  return {
    async getAuthnAttempts(orgId, subject): Promise<AttemptRecord | undefined> {
      const [row] = await db.all<{ failures: number | string; last_attempt_at: number | string }>(
        'SELECT failures, last_attempt_at FROM authn_attempts WHERE org_id = $1 AND subject = $2',
        [orgId, subject],
      );
      return row && { failures: Number(row.failures), lastAttemptAt: time(row.last_attempt_at) };
    },

    async countAuthnAttemptIf({ orgId, subject, personId, credentialType }, expectedFailures, at): Promise<boolean> {
      // One upsert: a first attempt inserts (a racing insert turns into the conditional
      // update), any later one increments only from the count the caller decided on. The
      // person is the handle's current one: a handle moved to another person follows it.
      const counted = await db.run(
        `INSERT INTO authn_attempts (org_id, subject, person_id, credential_type, failures, last_attempt_at) VALUES ($1, $2, $5, $6, 1, $4)
         ON CONFLICT (org_id, subject) DO UPDATE SET failures = authn_attempts.failures + 1, last_attempt_at = $4, person_id = $5
         WHERE authn_attempts.failures = $3`,
        [orgId, subject, expectedFailures, at, personId, credentialType],
      );
      return counted === 1;
    },

    async uncountAuthnAttempt(orgId, subject): Promise<void> {
      await db.run('UPDATE authn_attempts SET failures = failures - 1 WHERE org_id = $1 AND subject = $2 AND failures > 0', [orgId, subject]);
    },

    async clearAuthnAttempts(orgId, subject): Promise<void> {
      await db.run('DELETE FROM authn_attempts WHERE org_id = $1 AND subject = $2', [orgId, subject]);
    },

    async listAuthnAttemptsOfPerson(orgId, personId, subjects): Promise<PersonAttemptRecord[]> {
      const { where, parameters } = ofPerson(orgId, personId, subjects);
      const rows = await db.all<{ credential_type: string; failures: number | string; last_attempt_at: number | string }>(
        `SELECT credential_type, failures, last_attempt_at FROM authn_attempts WHERE ${where}
         ORDER BY credential_type, last_attempt_at DESC, subject`,
        parameters,
      );
      return rows.map((row) => ({ credentialType: row.credential_type, failures: Number(row.failures), lastAttemptAt: time(row.last_attempt_at) }));
    },

    clearAuthnAttemptsOfPerson(orgId, personId, subjects, credentialType): Promise<number> {
      const { where, parameters } = ofPerson(orgId, personId, subjects);
      if (credentialType === undefined) return db.run(`DELETE FROM authn_attempts WHERE ${where}`, parameters);
      return db.run(`DELETE FROM authn_attempts WHERE ${where} AND credential_type = $${parameters.length + 1}`, [...parameters, credentialType]);
    },

    purgeAuthnAttemptsOfNoOne(before, limit): Promise<number> {
      return db.run(
        `DELETE FROM authn_attempts WHERE (org_id, subject) IN
           (SELECT org_id, subject FROM authn_attempts WHERE person_id IS NULL AND last_attempt_at < $1 LIMIT $2)`,
        [before, limit],
      );
    },
  };
}

/** The rows of a person: counted for them, or of one of their handles' subjects ($n placeholders, either dialect). */
function ofPerson(orgId: string, personId: string, subjects: readonly string[]): { where: string; parameters: string[] } {
  const listed = subjects.map((_, i) => `$${i + 3}`).join(', ');
  const where = `org_id = $1 AND (person_id = $2${subjects.length > 0 ? ` OR subject IN (${listed})` : ''})`;
  return { where, parameters: [orgId, personId, ...subjects] };
}

/** A party-deletion step: a deleted person's counters go with them (party-deletion.ts). */
export function forgetAttemptsOfParty(tx: SqlExecutor, orgId: string, partyId: string): Promise<number> {
  // subject = the id: a counter of the per-person kind, from before migration 7.
  return tx.run('DELETE FROM authn_attempts WHERE org_id = $1 AND (person_id = $2 OR subject = $2)', [orgId, partyId]);
}
