import type { MigrationSource } from './dialect.ts';

export const totpEnrolments: MigrationSource = {
  version: 6,
  name: 'pending totp enrolments',
  statements: (t) => [
    // A started enrolment, prepared as the credential it will become (key sealed, recovery
    // codes hashed); confirmed by a first code, or purged once expired. Goes with its person.
    `CREATE TABLE totp_enrolments (
        id TEXT PRIMARY KEY,
        org_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        person_id TEXT NOT NULL REFERENCES persons(id) ON DELETE CASCADE,
        label TEXT,
        params ${t.json} NOT NULL,
        secret ${t.json} NOT NULL,
        created_at ${t.time} NOT NULL,
        expires_at ${t.time} NOT NULL)`,
    'CREATE INDEX totp_enrolments_by_expiry ON totp_enrolments (expires_at)',
  ],
};
