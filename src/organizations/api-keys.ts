import { type Operator, recordAdminEvent } from '../audit/admin-events.ts';
import { hashSecret, newId, newSecret } from '../crypto/ids.ts';
import { ApiError } from '../errors/api-error.ts';
import type { ApiKey, ApiKeyKind } from '../store/organizations/store.ts';
import type { TransactionalStore } from '../store/store.ts';

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
 * Revokes a key, never the organisation's last admin key (409): without one, nobody could
 * manage the organisation through the API again. `field` names the key id in the messages.
 */
export async function revokeApiKey(
  store: TransactionalStore,
  orgId: string,
  keyId: string,
  field: string,
  operator: Operator,
  now = Date.now(),
): Promise<void> {
  await store.inTransaction(async (tx) => {
    const outcome = await tx.deleteApiKeyKeepingAnAdmin(orgId, keyId);
    if (outcome === 'not_found') throw new ApiError('NOT_FOUND', `${field}: no API key of this organisation has this id`);
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
export async function rotateApiKey(
  store: TransactionalStore,
  orgId: string,
  keyId: string,
  field: string,
  operator: Operator,
  now = Date.now(),
): Promise<IssuedApiKey> {
  return store.inTransaction(async (tx) => {
    const old = await tx.getApiKey(orgId, keyId);
    const issued = old && newApiKey(orgId, old.name, old.kind, now);
    if (!issued || !(await tx.replaceApiKeyById(orgId, keyId, issued.key))) {
      throw new ApiError('NOT_FOUND', `${field}: no API key of this organisation has this id`);
    }
    await recordAdminEvent(tx, now, orgId, operator, 'api_key.rotated', {
      key_id: issued.key.id,
      replaced_key_id: keyId,
      name: issued.key.name,
      kind: issued.key.kind,
    });
    return issued;
  });
}
