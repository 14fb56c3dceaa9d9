import { type Operator, recordAdminEvent } from '../audit/admin-events.ts';
import { organizationConfigDefaults } from '../config/defaults.ts';
import { newId } from '../crypto/ids.ts';
import type { ApiKeyKind, Organization, OrganizationStore } from '../store/organizations/store.ts';
import type { TransactionalStore } from '../store/store.ts';
import { newApiKey } from './operations.ts';

export interface CreatedOrganization {
  org: Organization;
  /** The first admin key in clear: shown once, only its hash is stored. */
  apiKey: string;
}

const NAME = /^\S(.{0,98}\S)?$/;

/** Bad input to an admin command; the message names the option and the rule. */
export class InvalidArgumentError extends Error {
  readonly code = 'INVALID_ARGUMENT';
}

/**
 * Creates an organisation with its first admin key and, with an `operator` (the CLI's
 * create-org and demo), its first audit event naming them. Test fixtures that seed a database
 * pass none, so that a test's audit log holds only what the test did.
 */
export async function createOrganization(
  store: TransactionalStore,
  name: string,
  { operator, keyName = 'first-admin-key' }: { operator?: Operator; keyName?: string } = {},
): Promise<CreatedOrganization> {
  if (!NAME.test(name)) throw new InvalidArgumentError('--name: must be 1 to 100 characters, without leading or trailing spaces');
  const now = Date.now();
  const org: Organization = { id: newId('org', now), name, config: structuredClone(organizationConfigDefaults), createdAt: now };
  const { key, secret } = newApiKey(org.id, keyName, 'admin', now);
  await store.inTransaction(async (tx) => {
    await tx.createOrganization(org, key);
    if (operator) await recordAdminEvent(tx, now, org.id, operator, 'organization.created', { name, first_key_id: key.id, first_key_name: keyName });
  });
  return { org, apiKey: secret };
}

/** Issues a fresh admin key under `name`, replacing any earlier key of that name. */
export function replaceAdminKey(store: OrganizationStore, orgId: string, name: string): Promise<string> {
  return replaceApiKey(store, orgId, name, 'admin');
}

/** Issues a fresh key of `kind` under `name`, replacing any earlier key of that name. */
export async function replaceApiKey(store: OrganizationStore, orgId: string, name: string, kind: ApiKeyKind): Promise<string> {
  await store.deleteApiKeysByName(orgId, name);
  const { key, secret } = newApiKey(orgId, name, kind, Date.now());
  await store.createApiKey(key);
  return secret;
}
