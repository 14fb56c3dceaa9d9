import { type Operator, recordAdminEvent } from '../audit/admin-events.ts';
import { hashSecret, newId, newSecret } from '../crypto/ids.ts';
import { hostProblem, tenantUrlProblem } from '../egress/address-policy.ts';
import { ApiError, invalidField } from '../errors/api-error.ts';
import type { ApiKey, ApiKeyKind, Organization, OrganizationConfig } from '../store/organizations/store.ts';
import type { TransactionalStore } from '../store/store.ts';
import { checkOrganizationConfig } from './config-rules.ts';
import type { ConfigPatch } from './schemas.ts';

// What an administrator changes in an organisation, whichever door they come through (API key,
// console): each change commits with its audit event naming the operator (never a secret).

/**
 * Applies a patch that ConfigPatch admitted, atomically, if the resulting configuration keeps
 * the rules JSON Schema cannot say (checkOrganizationConfig); otherwise throws INVALID_FIELD
 * naming the field (`body.webauthn_origins[0]`) and nothing is saved. Undefined when the
 * organisation is gone.
 */
export async function changeOrganizationConfig(
  store: TransactionalStore,
  orgId: string,
  patch: ConfigPatch,
  options: { dev: boolean },
  operator: Operator,
  now = Date.now(),
): Promise<Organization | undefined> {
  // Where the service will fetch trust bundles from, resolved before the transaction: a bundle
  // URL may not lead into the service's own networks (anyone can make it fetch one, with an SVID).
  for (const [trustDomain, url] of Object.entries(patch.svid_jwks_urls ?? {})) {
    if (!URL.canParse(url) || tenantUrlProblem(url, { dev: options.dev, allowQuery: true })) continue; // checkOrganizationConfig names that rule
    const problem = await hostProblem(new URL(url), { allowLoopback: options.dev });
    if (problem) throw invalidField(`body.svid_jwks_urls.${trustDomain}`, problem);
  }
  return store.inTransaction(async (tx) => {
    let changed: string[] = [];
    const updated = await tx.updateOrganizationConfig(orgId, (current) => {
      const config: OrganizationConfig = { ...current, ...patch };
      const problem = checkOrganizationConfig(config, options);
      if (problem) throw invalidField(`body.${problem.field}`, problem.rule);
      changed = changedFields(current, config);
      return config;
    });
    // The field names only: a value may be long (a list of SPIFFE ids), and the log says who changed what.
    // A PATCH that changed nothing is no change: nothing to record.
    if (updated && changed.length > 0) await recordAdminEvent(tx, now, orgId, operator, 'organization.config_changed', { fields: changed });
    return updated;
  });
}

/** The configuration fields whose values differ, in the configuration's order. */
function changedFields(before: OrganizationConfig, after: OrganizationConfig): string[] {
  return (Object.keys(after) as (keyof OrganizationConfig)[]).filter((name) => JSON.stringify(before[name]) !== JSON.stringify(after[name]));
}

/** A key as the API shows it (never its secret's hash). */
export function presentKey(key: ApiKey) {
  return { id: key.id, name: key.name, kind: key.kind, created_at: new Date(key.createdAt).toISOString() };
}

/** A key and its secret in clear: shown once, only its hash is stored. */
export interface IssuedApiKey {
  key: ApiKey;
  secret: string;
}

/** A new key of `kind`, not yet stored; the secret's prefix tells the kinds apart in logs and leaks. */
export function newApiKey(orgId: string, name: string, kind: ApiKeyKind, now: number): IssuedApiKey {
  const secret = newSecret(kind === 'admin' ? 'tsk' : 'tsi');
  return { key: { id: newId('key', now), orgId, name, kind, secretHash: hashSecret(secret), createdAt: now }, secret };
}

/**
 * POST /organizations/api-keys and the console: a name taken in the organisation is a
 * ConflictError ('api_key_name'). Each change here commits with its audit event (never the secret).
 */
export async function createApiKey(
  store: TransactionalStore,
  orgId: string,
  request: { name: string; kind: ApiKeyKind },
  operator: Operator,
  now = Date.now(),
): Promise<IssuedApiKey> {
  const issued = newApiKey(orgId, request.name, request.kind, now);
  await store.inTransaction(async (tx) => {
    await tx.createApiKey(issued.key);
    await recordAdminEvent(tx, now, orgId, operator, 'api_key.created', { key_id: issued.key.id, name: issued.key.name, kind: issued.key.kind });
  });
  return issued;
}

/**
 * A key a caller names for a change: `field` is how the caller named it (`path.key_id`, the
 * console's `key`), which the messages repeat.
 */
export interface NamedApiKey {
  orgId: string;
  keyId: string;
  field: string;
}

const apiKeyNotFound = ({ field }: NamedApiKey) => new ApiError('NOT_FOUND', `${field}: no API key of this organisation has this id`);

/**
 * Revokes a key, never the organisation's last admin key (409): without one, nobody could
 * manage the organisation through the API again.
 */
export async function revokeApiKey(store: TransactionalStore, named: NamedApiKey, operator: Operator, now = Date.now()): Promise<void> {
  const { orgId, keyId, field } = named;
  await store.inTransaction(async (tx) => {
    const outcome = await tx.deleteApiKeyKeepingAnAdmin(orgId, keyId);
    if (outcome === 'not_found') throw apiKeyNotFound(named);
    if (outcome === 'last_admin_key') {
      throw new ApiError('CONFLICT', `${field}: is the organisation's last admin key; create another admin key before revoking this one`);
    }
    await recordAdminEvent(tx, now, orgId, operator, 'api_key.revoked', { key_id: keyId });
  });
}

/**
 * Replaces a key by a new one of the same name and kind, in one transaction: the old secret
 * stops working exactly when the new one starts, and an organisation never passes through a
 * moment without the key (its last admin key can be rotated safely).
 */
export async function rotateApiKey(store: TransactionalStore, named: NamedApiKey, operator: Operator, now = Date.now()): Promise<IssuedApiKey> {
  const { orgId, keyId } = named;
  return store.inTransaction(async (tx) => {
    const old = await tx.getApiKey(orgId, keyId);
    const issued = old && newApiKey(orgId, old.name, old.kind, now);
    if (!issued || !(await tx.replaceApiKeyById(orgId, keyId, issued.key))) throw apiKeyNotFound(named);
    await recordAdminEvent(tx, now, orgId, operator, 'api_key.rotated', {
      key_id: issued.key.id,
      replaced_key_id: keyId,
      name: issued.key.name,
      kind: issued.key.kind,
    });
    return issued;
  });
}
