import type { MigrationSource } from './dialect.ts';

export const invitations: MigrationSource = {
  version: 15,
  name: 'invitations: one-time links that give a person a login (design §9)',
  statements: (t) => [
    // One row per person: a new invitation replaces the earlier one, so the earlier link is
    // revoked by the same statement that could otherwise leave two open. token_hash is SHA-256
    // of the link's token: the table alone opens no invitation.
    `CREATE TABLE invitations (
        person_id TEXT PRIMARY KEY REFERENCES persons(id) ON DELETE CASCADE,
        org_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        token_hash TEXT NOT NULL UNIQUE,
        reset ${t.bool} NOT NULL,
        created_at ${t.time} NOT NULL,
        expires_at ${t.time} NOT NULL,
        password_set_at ${t.time})`,
    'CREATE INDEX invitations_by_expiry ON invitations (expires_at)',
  ],
};
