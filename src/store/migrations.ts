import { foldCoreSchemaRows } from './identities/fold-core-schema-rows.ts';
import type { Migration } from './migrate.ts';
import type { SqlExecutor } from './sql-driver.ts';

type Dialect = 'sqlite' | 'postgres';

/** Column types that differ between the dialects; everything else is common SQL. */
interface Types {
  json: string;
  bool: string;
  time: string;
}

const typesOf: Record<Dialect, Types> = {
  sqlite: { json: 'TEXT', bool: 'INTEGER', time: 'INTEGER' },
  postgres: { json: 'JSONB', bool: 'BOOLEAN', time: 'BIGINT' },
};

interface MigrationSource {
  version: number;
  name: string;
  statements: (t: Types, dialect: Dialect) => string[];
  data?: (dialect: Dialect) => (tx: SqlExecutor) => Promise<void>;
}

/**
 * Append only: a released migration is never edited, a change is a new version. Times are
 * milliseconds since the epoch; JSON columns hold small documents read whole.
 */
const sources: readonly MigrationSource[] = [
  {
    version: 1,
    name: 'organizations, api keys, persons, oauth2 clients',
    statements: (t) => [
      `CREATE TABLE organizations (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL UNIQUE,
        config ${t.json} NOT NULL,
        created_at ${t.time} NOT NULL)`,
      `CREATE TABLE api_keys (
        id TEXT PRIMARY KEY,
        org_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        kind TEXT NOT NULL,
        secret_hash TEXT NOT NULL UNIQUE,
        created_at ${t.time} NOT NULL,
        UNIQUE (org_id, name))`,
      `CREATE TABLE persons (
        id TEXT PRIMARY KEY,
        org_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        handles ${t.json} NOT NULL,
        roles ${t.json} NOT NULL,
        console ${t.bool} NOT NULL,
        created_at ${t.time} NOT NULL)`,
      'CREATE INDEX persons_by_org ON persons (org_id, id)',
      // The handles also live on the person row for reading; this table enforces uniqueness
      // per organisation and serves look-ups by handle.
      `CREATE TABLE person_handles (
        org_id TEXT NOT NULL,
        type TEXT NOT NULL,
        value TEXT NOT NULL,
        person_id TEXT NOT NULL REFERENCES persons(id) ON DELETE CASCADE,
        PRIMARY KEY (org_id, type, value))`,
      'CREATE INDEX person_handles_by_person ON person_handles (person_id)',
      `CREATE TABLE oauth_clients (
        id TEXT PRIMARY KEY,
        org_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        scopes ${t.json} NOT NULL,
        grant_types ${t.json} NOT NULL,
        access_token_duration INTEGER NOT NULL,
        access_token_format TEXT NOT NULL,
        secret_hash TEXT NOT NULL UNIQUE,
        created_at ${t.time} NOT NULL)`,
      'CREATE INDEX oauth_clients_by_org ON oauth_clients (org_id, id)',
    ],
  },
  {
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
  },
  {
    version: 3,
    name: 'may_act carried by opaque tokens',
    // A delegated token keeps its subject's may_act, so the restriction holds on every hop.
    statements: (t) => [`ALTER TABLE tokens ADD COLUMN may_act ${t.json}`],
  },
  {
    version: 4,
    name: 'person credentials, authentication attempt counters',
    statements: (t) => [
      // A credential goes with its person (ON DELETE CASCADE): in the deleting statement
      // itself, and an insert racing a deletion fails its foreign key check instead of
      // leaving an orphan. params are shown back; secret never is.
      `CREATE TABLE credentials (
        id TEXT PRIMARY KEY,
        org_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        person_id TEXT NOT NULL REFERENCES persons(id) ON DELETE CASCADE,
        type TEXT NOT NULL,
        label TEXT,
        params ${t.json} NOT NULL,
        secret ${t.json},
        version INTEGER NOT NULL,
        last_used ${t.time},
        created_at ${t.time} NOT NULL)`,
      'CREATE INDEX credentials_by_person ON credentials (org_id, person_id, id)',
      // subject is a person id or a keyed hash of an unknown handle, so no foreign key;
      // a person's row is removed by a party-deletion step.
      `CREATE TABLE authn_attempts (
        org_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        subject TEXT NOT NULL,
        failures INTEGER NOT NULL,
        last_attempt_at ${t.time} NOT NULL,
        PRIMARY KEY (org_id, subject))`,
    ],
  },
  {
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
  },
  {
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
  },
  {
    version: 7,
    name: 'attempt counters per handle and credential type',
    statements: () => [
      // The counters were per person, which told an attacker that two handles name one person
      // (the second handle was refused at once) and locked every method together. Now one per
      // handle and credential type, under new subjects (src/authn/attempt-subject.ts).
      // person_id: who the handle named when last counted (null: nobody), for the
      // administrator's view and reset and for party deletion. Columns are added, not the
      // table rebuilt: a replica still on the old code keeps counting (its rows take the
      // defaults and are never read by the new code), so a rolling upgrade breaks no login.
      'ALTER TABLE authn_attempts ADD COLUMN person_id TEXT',
      "ALTER TABLE authn_attempts ADD COLUMN credential_type TEXT NOT NULL DEFAULT 'password'",
      'CREATE INDEX authn_attempts_by_person ON authn_attempts (org_id, person_id)',
    ],
  },
  // Version 8 is taken by the identity connections of another branch; the runner applies
  // versions it has not seen in list order, so a gap (or 8 arriving after 9) is harmless.
  {
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
  },
  {
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
  },
  {
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
  },
  {
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
  },
  {
    version: 12,
    name: 'SCIM: the durable deactivation, and core attributes stored under the core schema URN folded back',
    statements: (t) => [
      // Design §6: an identity whose `active` is absent is active only if it never was
      // deactivated. Set the first time it reads inactive, never cleared. Those inactive now were
      // deactivated at their last change at the latest.
      `ALTER TABLE scim_identities ADD COLUMN deactivated_at ${t.time}`,
      'UPDATE scim_identities SET deactivated_at = updated_at WHERE NOT active',
    ],
    // Release 11 kept what a provider sent under the core schema URN as an extension: a
    // deactivation so named was stored and ignored (issue 24 item 3). The fold needs the SCIM
    // schema's rules (names in any case, complex values merged), so it is code, not SQL; as a
    // released migration it must keep doing what it does now.
    data: (dialect) => foldCoreSchemaRows(dialect),
  },
  {
    version: 13,
    name: 'authn_attempts: an index for purging the counters of handles that name no one',
    // The purge timer deletes these by their last attempt (housekeeping/purge-stale-rows.ts);
    // without an index each batch scanned the table a stranger's guesses had grown.
    statements: () => ['CREATE INDEX authn_attempts_of_no_one_by_last_attempt ON authn_attempts (last_attempt_at) WHERE person_id IS NULL'],
  },
  {
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
  },
];

/**
 * A public-key credential's webauthn_credential_id, as the SQL of each dialect reads it from params:
 * the unique index of migration 14 is on this expression, and a look-up uses it only when it is
 * written the same way.
 */
export function passkeyCredentialIdSql(dialect: Dialect): string {
  return dialect === 'postgres' ? "(params->>'webauthn_credential_id')" : "json_extract(params, '$.webauthn_credential_id')";
}

/** The schema version this Tessera brings its database to; /readyz compares the database's. */
export const LATEST_SCHEMA_VERSION = Math.max(...sources.map((source) => source.version));

export function migrationsFor(dialect: Dialect): Migration[] {
  return sources.map(({ version, name, statements, data }) => ({
    version,
    name,
    statements: statements(typesOf[dialect], dialect),
    ...(data ? { data: data(dialect) } : {}),
  }));
}
