import type { MigrationSource } from './dialect.ts';

export const consoleSessions: MigrationSource = {
  version: 10,
  name: 'console sessions',
  statements: (t) => [
    // id_hash is SHA-256 of the cookie: the table alone opens no session. Goes with its person.
    `CREATE TABLE console_sessions (
        id_hash TEXT PRIMARY KEY,
        org_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        person_id TEXT NOT NULL REFERENCES persons(id) ON DELETE CASCADE,
        stage TEXT NOT NULL,
        handle ${t.json},
        amr ${t.json} NOT NULL,
        created_at ${t.time} NOT NULL,
        last_seen_at ${t.time} NOT NULL,
        expires_at ${t.time} NOT NULL)`,
    'CREATE INDEX console_sessions_of_person ON console_sessions (org_id, person_id)',
    'CREATE INDEX console_sessions_by_expiry ON console_sessions (expires_at)',
    'CREATE INDEX console_sessions_by_last_seen ON console_sessions (last_seen_at)',
  ],
};
