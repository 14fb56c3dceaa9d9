import type { MigrationSource } from './dialect.ts';

export const webauthnChallenges: MigrationSource = {
  version: 5,
  name: 'webauthn challenges',
  statements: (t) => [
    // One row per ceremony between its options and its verify call; spent by DELETE … RETURNING.
    // person_id is null for a login of a handle that names nobody (subject is then its keyed hash).
    `CREATE TABLE webauthn_challenges (
        id TEXT PRIMARY KEY,
        org_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        purpose TEXT NOT NULL,
        person_id TEXT REFERENCES persons(id) ON DELETE CASCADE,
        subject TEXT NOT NULL,
        challenge TEXT NOT NULL,
        created_at ${t.time} NOT NULL,
        expires_at ${t.time} NOT NULL)`,
    'CREATE INDEX webauthn_challenges_by_expiry ON webauthn_challenges (expires_at)',
  ],
};
