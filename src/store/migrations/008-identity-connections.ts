import type { MigrationSource } from './dialect.ts';

export const identityConnections: MigrationSource = {
  version: 8,
  name: 'identity connections and their SCIM identities',
  statements: (t) => [
    // type scim: the provider pushes to us with the bearer token whose SHA-256 is
    // token_hash. type scim_pull: we read the provider at base_url with its bearer token,
    // sealed with TESSERA_SECRET (it must be sent, so it cannot be hashed).
    `CREATE TABLE identity_connections (
        id TEXT PRIMARY KEY,
        org_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        type TEXT NOT NULL,
        token_hash TEXT UNIQUE,
        base_url TEXT,
        sealed_bearer_token TEXT,
        created_at ${t.time} NOT NULL,
        UNIQUE (org_id, name))`,
    'CREATE INDEX identity_connections_by_org ON identity_connections (org_id, id)',
    // One row per SCIM User a provider pushed. The *_key columns are the lower-cased forms
    // the case-insensitive rules compare (userName uniqueness, filters, email look-up); the
    // values themselves are kept as sent. attributes is the resource as sent, less password.
    `CREATE TABLE scim_identities (
        id TEXT PRIMARY KEY,
        org_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        connection_id TEXT NOT NULL REFERENCES identity_connections(id) ON DELETE CASCADE,
        user_name TEXT NOT NULL,
        user_name_key TEXT NOT NULL,
        external_id TEXT,
        email TEXT,
        email_key TEXT,
        active ${t.bool} NOT NULL,
        display_name TEXT,
        attributes ${t.json} NOT NULL,
        created_at ${t.time} NOT NULL,
        updated_at ${t.time} NOT NULL,
        UNIQUE (connection_id, user_name_key))`,
    'CREATE INDEX scim_identities_by_connection ON scim_identities (connection_id, id)',
    'CREATE INDEX scim_identities_by_external_id ON scim_identities (connection_id, external_id)',
    'CREATE INDEX scim_identities_by_email ON scim_identities (connection_id, email_key)',
  ],
};
