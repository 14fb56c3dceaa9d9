import type { JWK } from 'jose';
import { type Operator, recordAdminEvent } from '../audit/admin-events.ts';
import { clientDefaults } from '../config/defaults.ts';
import { hashSecret, newId, newSecret } from '../crypto/ids.ts';
import { ApiError, invalidField } from '../errors/api-error.ts';
import { SECRET_METHODS } from '../store/clients/store.ts';
import type { TransactionalStore } from '../store/store.ts';
import type { OAuthClient } from '../store/types.ts';
import { checkClientKeys, PUBLIC_MEMBERS } from './client-keys.ts';
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
    token_endpoint_auth_method: client.authMethod,
    // Registration checked every key's kty (client-keys.ts), which jose's JWK type leaves optional.
    ...(client.jwks ? { jwks: client.jwks as { keys: (JWK & { kty: string })[] } } : {}),
    created_at: new Date(client.createdAt).toISOString(),
  };
}

/** A registration's method and keys, checked together: keys only with private_key_jwt, and it needs them. */
async function authenticationOf(request: NewClient): Promise<Pick<OAuthClient, 'authMethod' | 'jwks'>> {
  const authMethod = request.token_endpoint_auth_method ?? 'client_secret_basic';
  if (SECRET_METHODS.includes(authMethod)) {
    if (request.jwks) throw invalidField('body.jwks', 'is only for token_endpoint_auth_method private_key_jwt');
    return { authMethod };
  }
  if (!request.jwks)
    throw invalidField('body.jwks', 'is required with token_endpoint_auth_method private_key_jwt: the public keys its assertions are signed with');
  await checkClientKeys({ keys: request.jwks.keys as JWK[] });
  // Only what verifying needs is stored: the cache of imported keys and every read stay small.
  const jwks = {
    keys: request.jwks.keys.map((key) =>
      Object.fromEntries(PUBLIC_MEMBERS.flatMap((member) => (member in key ? [[member, (key as JWK)[member]]] : []))),
    ) as JWK[],
  };
  return { authMethod, jwks };
}

/**
 * Registers a client NewClient admitted; a secret client's secret in clear is returned once, only
 * its hash is stored; a private_key_jwt client gets none (its secretHash hashes a value nobody is
 * shown). Each change here commits with its audit event naming the operator (never the secret).
 */
export async function createOAuthClient(
  store: TransactionalStore,
  orgId: string,
  request: NewClient,
  operator: Operator,
  now = Date.now(),
): Promise<{ client: OAuthClient; secret: string | undefined }> {
  const authentication = await authenticationOf(request);
  const secret = newSecret('tcs');
  const client: OAuthClient = {
    id: newId('cli', now),
    orgId,
    name: request.client_name,
    scopes: request.scopes ?? [],
    grantTypes: request.grant_types,
    accessTokenDuration: request.access_token_duration ?? clientDefaults.accessTokenDuration,
    accessTokenFormat: request.access_token_format ?? clientDefaults.accessTokenFormat,
    ...authentication,
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
      token_endpoint_auth_method: client.authMethod,
    });
  });
  return { client, secret: SECRET_METHODS.includes(client.authMethod) ? secret : undefined };
}

/** createOAuthClient for the CLI's and the console's forms, which register secret clients only. */
export async function createSecretClient(
  store: TransactionalStore,
  orgId: string,
  request: NewClient,
  operator: Operator,
  now = Date.now(),
): Promise<{ client: OAuthClient; secret: string }> {
  if (request.token_endpoint_auth_method === 'private_key_jwt') throw new TypeError('createSecretClient registers secret clients only');
  const { client, secret } = await createOAuthClient(store, orgId, request, operator, now);
  return { client, secret: secret! };
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
    const client = await tx.getClient(orgId, clientId);
    if (!client) return undefined;
    if (!SECRET_METHODS.includes(client.authMethod))
      throw new ApiError('CONFLICT', `path.client_id: this client authenticates with ${client.authMethod} and has no secret to rotate`);
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
