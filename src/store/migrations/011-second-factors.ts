import type { MigrationSource } from './dialect.ts';

export const secondFactors: MigrationSource = {
  version: 11,
  name: 'second factors: person generations, sign-in tickets, console session strength',
  statements: (t) => [
    // Design §5: raised by sign out everywhere, role changes and credential deletions, and
    // carried in person JWTs (`gen`, 0 when absent) and console sessions.
    'ALTER TABLE persons ADD COLUMN generation INTEGER NOT NULL DEFAULT 0',
    // Upgrading: everyone with a second factor moves to generation 1, so every token and console
    // session they hold from before (generation 0) ends, the password-only ones among them.
    `UPDATE persons SET generation = generation + 1 WHERE id IN (SELECT person_id FROM credentials WHERE type IN ('totp', 'public-key'))`,
    // The subject person's generation an opaque token was issued at (NULL: no person, or
    // issued before release 11, which reads as 0): a token issued while the generation was raised
    // escapes the raise's revocation, and this lets it be refused when read.
    'ALTER TABLE tokens ADD COLUMN person_generation INTEGER',
    'ALTER TABLE console_sessions ADD COLUMN generation INTEGER NOT NULL DEFAULT 0',
    `ALTER TABLE console_sessions ADD COLUMN auth_time ${t.time} NOT NULL DEFAULT 0`,
    'UPDATE console_sessions SET auth_time = created_at',
    // The pending second step of a sign-in now refers to its ticket; the handle column stays
    // (release 10 replicas still write it during a rolling upgrade) and is left NULL.
    'ALTER TABLE console_sessions ADD COLUMN ticket_hash TEXT',
    `DELETE FROM console_sessions WHERE stage = 'second_factor'`,
    // id_hash is SHA-256 of the ticket the client holds: the table alone completes no sign-in.
    `CREATE TABLE second_factor_tickets (
        id_hash TEXT PRIMARY KEY,
        org_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        person_id TEXT NOT NULL REFERENCES persons(id) ON DELETE CASCADE,
        handle ${t.json} NOT NULL,
        amr ${t.json} NOT NULL,
        generation INTEGER NOT NULL,
        attempts INTEGER NOT NULL,
        created_at ${t.time} NOT NULL,
        expires_at ${t.time} NOT NULL)`,
    'CREATE INDEX second_factor_tickets_by_expiry ON second_factor_tickets (expires_at)',
  ],
};
