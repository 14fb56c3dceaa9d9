import { type MigrationSource, passkeyCredentialIdSql } from './dialect.ts';

export const onePasskeyPerOrganization: MigrationSource = {
  version: 14,
  name: 'credentials: a passkey (its WebAuthn credential id) belongs to one person of the organisation',
  statements: (t, dialect) => {
    const credentialId = passkeyCredentialIdSql(dialect);
    return [
      // W3C WebAuthn §7.1 step 26: a credential id is registered for one user. Earlier releases
      // let the same id be registered or imported for several persons; those copies are kept
      // (deleting someone's passkey is not a migration's call) and marked, all but the oldest
      // of each id, so that the unique index below can be built over them. The service never
      // sets the mark; operations.md says how to find and resolve them.
      `ALTER TABLE credentials ADD COLUMN passkey_duplicate ${t.bool} NOT NULL DEFAULT FALSE`,
      `UPDATE credentials SET passkey_duplicate = TRUE WHERE id IN (
          SELECT id FROM (
            SELECT id, ROW_NUMBER() OVER (PARTITION BY org_id, ${credentialId} ORDER BY id) AS copy
            FROM credentials WHERE type = 'public-key' AND ${credentialId} IS NOT NULL) AS numbered
          WHERE copy > 1)`,
      // One row per (organisation, credential id), whoever inserts it, a replica of an earlier
      // release during a rolling upgrade included. A marked copy's third column is its own id,
      // so it takes no other row's place; it stays in the index so that the store's look-up
      // by the first two columns finds it too.
      `CREATE UNIQUE INDEX credentials_one_passkey_per_org ON credentials (org_id, ${credentialId}, (CASE WHEN passkey_duplicate THEN id ELSE '' END))
          WHERE type = 'public-key'`,
    ];
  },
};
