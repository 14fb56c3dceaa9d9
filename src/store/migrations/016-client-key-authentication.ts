import type { MigrationSource } from './dialect.ts';

export const clientKeyAuthentication: MigrationSource = {
  version: 16,
  name: 'client authentication without a shared secret: private_key_jwt and SPIFFE (design §4)',
  statements: (t) => [
    // Every client made before this authenticated with its secret, as Basic or in the body.
    "ALTER TABLE oauth_clients ADD COLUMN token_endpoint_auth_method TEXT NOT NULL DEFAULT 'client_secret_basic'",
    `ALTER TABLE oauth_clients ADD COLUMN jwks ${t.json}`,
    'ALTER TABLE oauth_clients ADD COLUMN jwks_uri TEXT',
    'ALTER TABLE oauth_clients ADD COLUMN spiffe_id TEXT',
    // A private_key_jwt assertion's jti, spent once across every replica until the assertion
    // expires (RFC 7523 §3); kept as SHA-256, the row names no assertion.
    `CREATE TABLE client_assertion_jtis (
        client_id TEXT NOT NULL REFERENCES oauth_clients(id) ON DELETE CASCADE,
        jti_hash TEXT NOT NULL,
        expires_at ${t.time} NOT NULL,
        PRIMARY KEY (client_id, jti_hash))`,
    'CREATE INDEX client_assertion_jtis_by_expiry ON client_assertion_jtis (expires_at)',
  ],
};
