import { type Operator, recordAdminEvent } from '../audit/admin-events.ts';
import { clientDefaults } from '../config/defaults.ts';
import { hashSecret, newId, newSecret } from '../crypto/ids.ts';
import type { TransactionalStore } from '../store/store.ts';
import type { OAuthClient } from '../store/types.ts';
import type { NewClient } from './schemas.ts';

/** A client as the API shows it (never its secret's hash). */
export function presentClient(client: OAuthClient) {
  return {
    client_id: client.id,
    client_name: client.name,
    scopes: client.scopes,
    grant_types: client.grantTypes,
    access_token_duration: client.accessTokenDuration,
    access_token_format: client.accessTokenFormat,
    created_at: new Date(client.createdAt).toISOString(),
  };
}

/**
 * Registers a client NewClient admitted; the secret in clear is returned once, only its hash is
 * stored. Each change here commits with its audit event naming the operator (never the secret).
 */
export async function createOAuthClient(
  store: TransactionalStore,
  orgId: string,
  request: NewClient,
  operator: Operator,
  now = Date.now(),
): Promise<{ client: OAuthClient; secret: string }> {
  const secret = newSecret('tcs');
  const client: OAuthClient = {
    id: newId('cli', now),
    orgId,
    name: request.client_name,
    scopes: request.scopes ?? [],
    grantTypes: request.grant_types,
    accessTokenDuration: request.access_token_duration ?? clientDefaults.accessTokenDuration,
    accessTokenFormat: request.access_token_format ?? clientDefaults.accessTokenFormat,
    secretHash: hashSecret(secret),
    createdAt: now,
  };
  await store.inTransaction(async (tx) => {
    await tx.createClient(client);
    await recordAdminEvent(tx, now, orgId, operator, 'client.created', {
      client_id: client.id,
      client_name: client.name,
      grant_types: client.grantTypes,
      scopes: client.scopes,
    });
  });
  return { client, secret };
}

/** A new secret for the client, the old one refused from now on; undefined when no such client. */
export function rotateOAuthClientSecret(
  store: TransactionalStore,
  orgId: string,
  clientId: string,
  operator: Operator,
  now = Date.now(),
): Promise<string | undefined> {
  const secret = newSecret('tcs');
  return store.inTransaction(async (tx) => {
    if (!(await tx.replaceClientSecret(orgId, clientId, hashSecret(secret)))) return undefined;
    await recordAdminEvent(tx, now, orgId, operator, 'client.secret_rotated', { client_id: clientId });
    return secret;
  });
}

/** Deletes the client and revokes its opaque tokens (ClientStore.deleteClient), with its event; false when no such client. */
export function deleteOAuthClient(store: TransactionalStore, orgId: string, clientId: string, operator: Operator, now = Date.now()): Promise<boolean> {
  return store.inTransaction(async (tx) => {
    if (!(await tx.deleteClient(orgId, clientId, now))) return false;
    await recordAdminEvent(tx, now, orgId, operator, 'client.deleted', { client_id: clientId });
    return true;
  });
}
