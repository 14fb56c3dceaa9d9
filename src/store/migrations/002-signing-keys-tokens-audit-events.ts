import type { MigrationSource } from './dialect.ts';

export const signingKeysTokensAuditEvents: MigrationSource = {
  version: 2,
  name: 'signing keys, opaque tokens, audit events',
  statements: (t) => [
    // The private JWK is sealed with TESSERA_SECRET; only the public half is readable.
    // A unique index on the constant status 'active' allows one active key at a time,
    // so replicas starting together cannot both create one.
    `CREATE TABLE signing_keys (
        kid TEXT PRIMARY KEY,
        alg TEXT NOT NULL,
        public_jwk ${t.json} NOT NULL,
        sealed_private_jwk TEXT NOT NULL,
        status TEXT NOT NULL,
        created_at ${t.time} NOT NULL,
        retired_at ${t.time})`,
    "CREATE UNIQUE INDEX one_active_signing_key ON signing_keys (status) WHERE status = 'active'",
    // Opaque tokens are stored as the SHA-256 of their value, never in the clear.
    `CREATE TABLE tokens (
        hash TEXT PRIMARY KEY,
        org_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        client_id TEXT,
        subject TEXT NOT NULL,
        scope TEXT NOT NULL,
        audience ${t.json} NOT NULL,
        resource ${t.json} NOT NULL,
        act ${t.json},
        parent_hash TEXT,
        issued_at ${t.time} NOT NULL,
        expires_at ${t.time} NOT NULL,
        revoked_at ${t.time})`,
    'CREATE INDEX tokens_by_parent ON tokens (parent_hash)',
    'CREATE INDEX tokens_by_expiry ON tokens (expires_at)',
    `CREATE TABLE audit_events (
        id TEXT PRIMARY KEY,
        org_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        type TEXT NOT NULL,
        occurred_at ${t.time} NOT NULL,
        data ${t.json} NOT NULL)`,
    'CREATE INDEX audit_events_by_org ON audit_events (org_id, id)',
    'CREATE INDEX audit_events_by_org_type ON audit_events (org_id, type, id)',
  ],
};
