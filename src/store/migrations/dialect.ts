import type { Migration } from '../migrate.ts';
import type { SqlExecutor } from '../sql-driver.ts';

export type Dialect = 'sqlite' | 'postgres';

/** Column types that differ between the dialects; everything else is common SQL. */
export interface Types {
  json: string;
  bool: string;
  time: string;
}

const typesOf: Record<Dialect, Types> = {
  sqlite: { json: 'TEXT', bool: 'INTEGER', time: 'INTEGER' },
  postgres: { json: 'JSONB', bool: 'BOOLEAN', time: 'BIGINT' },
};

/** A migration written once for both dialects, rendered for one by renderMigration. */
export interface MigrationSource {
  version: number;
  name: string;
  statements: (t: Types, dialect: Dialect) => string[];
  data?: (dialect: Dialect) => (tx: SqlExecutor) => Promise<void>;
}

export function renderMigration({ version, name, statements, data }: MigrationSource, dialect: Dialect): Migration {
  return {
    version,
    name,
    statements: statements(typesOf[dialect], dialect),
    ...(data ? { data: data(dialect) } : {}),
  };
}

/**
 * A public-key credential's webauthn_credential_id, as the SQL of each dialect reads it from params:
 * the unique index of migration 14 is on this expression, and a look-up uses it only when it is
 * written the same way.
 */
export function passkeyCredentialIdSql(dialect: Dialect): string {
  return dialect === 'postgres' ? "(params->>'webauthn_credential_id')" : "json_extract(params, '$.webauthn_credential_id')";
}
