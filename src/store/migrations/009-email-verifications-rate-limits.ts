import type { MigrationSource } from './dialect.ts';

export const emailVerificationsRateLimits: MigrationSource = {
  version: 9,
  name: 'email verifications, rate-limit counters',
  statements: (t) => [
    // connection_id and identity_id name rows of the identity directory, which may live in the
    // provider (scim_pull): no foreign key. code_hash is keyed (src/verification/code.ts).
    `CREATE TABLE email_verifications (
        id TEXT PRIMARY KEY,
        org_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        connection_id TEXT NOT NULL,
        identity_id TEXT NOT NULL,
        email_sent_to TEXT NOT NULL,
        code_hash TEXT NOT NULL,
        created_at ${t.time} NOT NULL,
        expires_at ${t.time} NOT NULL,
        attempts INTEGER NOT NULL,
        state TEXT NOT NULL,
        closed_reason TEXT,
        ended_at ${t.time})`,
    // At most one open verification per identity, whatever the replicas do.
    `CREATE UNIQUE INDEX email_verifications_one_open ON email_verifications (org_id, connection_id, identity_id) WHERE state = 'open'`,
    'CREATE INDEX email_verifications_by_expiry ON email_verifications (expires_at)',
    `CREATE TABLE rate_limits (
        org_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        subject TEXT NOT NULL,
        window_start ${t.time} NOT NULL,
        hits INTEGER NOT NULL,
        PRIMARY KEY (org_id, subject))`,
    'CREATE INDEX rate_limits_by_window ON rate_limits (window_start)',
  ],
};
