import type { MigrationSource } from './dialect.ts';

export const credentialsAttemptCounters: MigrationSource = {
  version: 4,
  name: 'person credentials, authentication attempt counters',
  statements: (t) => [
    // A credential goes with its person (ON DELETE CASCADE): in the deleting statement
    // itself, and an insert racing a deletion fails its foreign key check instead of
    // leaving an orphan. params are shown back; secret never is.
    `CREATE TABLE credentials (
        id TEXT PRIMARY KEY,
        org_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        person_id TEXT NOT NULL REFERENCES persons(id) ON DELETE CASCADE,
        type TEXT NOT NULL,
        label TEXT,
        params ${t.json} NOT NULL,
        secret ${t.json},
        version INTEGER NOT NULL,
        last_used ${t.time},
        created_at ${t.time} NOT NULL)`,
    'CREATE INDEX credentials_by_person ON credentials (org_id, person_id, id)',
    // subject is a person id or a keyed hash of an unknown handle, so no foreign key;
    // a person's row is removed by a party-deletion step.
    `CREATE TABLE authn_attempts (
        org_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        subject TEXT NOT NULL,
        failures INTEGER NOT NULL,
        last_attempt_at ${t.time} NOT NULL,
        PRIMARY KEY (org_id, subject))`,
  ],
};
