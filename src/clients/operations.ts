import { type Static, Type } from 'typebox';
import { type Operator, recordAdminEvent } from '../audit/admin-events.ts';
import { clientDefaults } from '../config/defaults.ts';
import { hashSecret, newId, newSecret } from '../crypto/ids.ts';
import { scopeTokenPattern } from '../oauth/scope.ts';
import type { TransactionalStore } from '../store/store.ts';
import { accessTokenFormats, clientGrantTypes, type OAuthClient } from '../store/types.ts';

export const ClientFields = {
  client_name: Type.String({ minLength: 1, maxLength: 200 }),
  scopes: Type.Array(Type.String({ pattern: scopeTokenPattern(128) }), { maxItems: 100, uniqueItems: true, description: 'Scopes the client may be granted' }),
  grant_types: Type.Array(Type.Enum(clientGrantTypes), { minItems: 1, uniqueItems: true }),
  access_token_duration: Type.Integer({ minimum: 60, maximum: 86_400, description: "Seconds; capped by the organisation's token_lifetime_ceiling" }),
  access_token_format: Type.Enum(accessTokenFormats, { description: 'Format of client_credentials tokens' }),
};
/** POST /oauth2/clients's body; the console's form is checked against it too. */
export const NewClient = Type.Object(
  {
    client_name: ClientFields.client_name,
    grant_types: ClientFields.grant_types,
    scopes: Type.Optional(ClientFields.scopes),
    access_token_duration: Type.Optional(ClientFields.access_token_duration),
    access_token_format: Type.Optional(ClientFields.access_token_format),
  },
  { additionalProperties: false },
);
export type NewClient = Static<typeof NewClient>;

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
