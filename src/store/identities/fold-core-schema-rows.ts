import { foldCoreSchemaMember } from '../../scim-user/core-schema-fold.ts';
import { identityFields } from '../../scim-user/user-resource.ts';
import { type Json, json, time } from '../rows.ts';
import type { SqlExecutor } from '../sql-driver.ts';
import { caseKey } from './store.ts';

interface Row {
  id: string;
  connection_id: string;
  user_name_key: string;
  attributes: Json;
  deactivated_at: number | string | null;
  updated_at: number | string;
}

/**
 * Migration 12's data step: the SCIM identities release 11 stored with a member keyed by the core
 * schema URN get that member folded into their attributes (foldCoreSchemaMember), and their
 * lifted columns written again from the result, so a deactivation so named is one at last.
 * A folded userName that another identity of the connection already holds is not taken (the
 * unique index would stop the upgrade); the stored one stays.
 */
export function foldCoreSchemaRows(dialect: 'sqlite' | 'postgres') {
  return async (tx: SqlExecutor): Promise<void> => {
    const text = dialect === 'postgres' ? 'attributes::text' : 'attributes';
    // The LIKE finds candidates (any case of the URN as a key or a value); the fold decides.
    const rows = await tx.all<Row>(
      `SELECT id, connection_id, user_name_key, attributes, deactivated_at, updated_at FROM scim_identities WHERE lower(${text}) LIKE $1`,
      ['%"urn:ietf:params:scim:schemas:core:2.0:user"%'],
    );
    for (const row of rows) {
      const stored = json<Record<string, unknown>>(row.attributes);
      const fold = foldCoreSchemaMember(stored);
      if (!fold) continue;
      const attributes = fold.attributes;
      if (caseKey(String(attributes.userName)) !== row.user_name_key) {
        const [taken] = await tx.all('SELECT id FROM scim_identities WHERE connection_id = $1 AND user_name_key = $2', [
          row.connection_id,
          caseKey(String(attributes.userName)),
        ]);
        if (taken) attributes.userName = stored.userName;
      }
      const deactivatedAt = row.deactivated_at === null ? (fold.deactivated ? time(row.updated_at) : null) : time(row.deactivated_at);
      const fields = identityFields(attributes, deactivatedAt !== null);
      await tx.run(
        `UPDATE scim_identities SET user_name = $2, user_name_key = $3, external_id = $4, email = $5, email_key = $6, active = $7,
           display_name = $8, attributes = $9, deactivated_at = $10 WHERE id = $1`,
        [
          row.id,
          fields.userName,
          caseKey(fields.userName),
          fields.externalId,
          fields.email,
          fields.email === null ? null : caseKey(fields.email),
          fields.active,
          fields.displayName,
          JSON.stringify(attributes),
          deactivatedAt,
        ],
      );
    }
  };
}
