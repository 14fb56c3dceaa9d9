import { foldCoreSchemaRows } from '../identities/fold-core-schema-rows.ts';
import type { MigrationSource } from './dialect.ts';

export const scimDeactivationCoreSchemaFold: MigrationSource = {
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
};
