import type { JWK } from 'jose';
import { type Operator, recordAdminEvent } from '../audit/admin-events.ts';
import { clientDefaults } from '../config/defaults.ts';
import { hashSecret, newId, newSecret } from '../crypto/ids.ts';
import { ApiError } from '../errors/api-error.ts';
import { SECRET_METHODS } from '../store/clients/store.ts';
import type { TransactionalStore } from '../store/store.ts';
import type { OAuthClient } from '../store/types.ts';
import { type AuthenticationRequest, authenticationOf } from './authentication.ts';
import type { NewClient } from './schemas.ts';

/** What the operations on clients need besides the store: TESSERA_DEV lets a jwks_uri be loopback http. */
export interface ClientPolicy {
  dev: boolean;
}

/**
 * What a client authenticates with, for its audit events: the method, and the key ids, key URL
 * or SPIFFE ID it trusts (none is secret, and a swap of any is what an investigator looks for).
 */
function authenticationNotes(client: OAuthClient): Record<string, unknown> {
  return {
    token_endpoint_auth_method: client.authMethod,
    ...(client.jwks ? { key_ids: client.jwks.keys.map((key) => key.kid ?? null) } : {}),
    ...(client.jwksUri ? { jwks_uri: client.jwksUri } : {}),
    ...(client.spiffeId ? { spiffe_id: client.spiffeId } : {}),
  };
}

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
    ...(client.jwksUri ? { jwks_uri: client.jwksUri } : {}),
    ...(client.spiffeId ? { spiffe_id: client.spiffeId } : {}),
    created_at: new Date(client.createdAt).toISOString(),
  };
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
  policy: ClientPolicy = { dev: false },
): Promise<{ client: OAuthClient; secret: string | undefined }> {
  const authentication = await authenticationOf(request, policy);
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
      ...authenticationNotes(client),
    });
  });
  return { client, secret: SECRET_METHODS.includes(client.authMethod) ? secret : undefined };
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

/**
 * PATCH /oauth2/clients/{id} (design §4): switches the client's method. To a keyed one, with its
 * jwks, jwks_uri or spiffe_id: its secret is dropped (the hash of a value nobody is shown takes
 * its place) and refused from now on. To a secret method: a new secret, returned once. The
 * audit event names the methods, never a secret. Undefined when no such client.
 */
export async function switchClientAuthentication(
  store: TransactionalStore,
  orgId: string,
  clientId: string,
  request: AuthenticationRequest & { token_endpoint_auth_method: OAuthClient['authMethod'] },
  operator: Operator,
  now = Date.now(),
  policy: ClientPolicy = { dev: false },
): Promise<{ client: OAuthClient; secret: string | undefined } | undefined> {
  const authentication = await authenticationOf(request, policy);
  const keyed = !SECRET_METHODS.includes(authentication.authMethod);
  return store.inTransaction(async (tx) => {
    const before = await tx.getClient(orgId, clientId);
    if (!before) return undefined;
    // A secret client switching between the secret methods keeps its secret: both accept it.
    const keepsSecret = !keyed && SECRET_METHODS.includes(before.authMethod);
    const secret = keepsSecret ? undefined : newSecret('tcs');
    const secretHash = secret === undefined ? before.secretHash : hashSecret(secret);
    const client: OAuthClient = { ...before, jwks: undefined, jwksUri: undefined, spiffeId: undefined, ...authentication, secretHash };
    await tx.replaceClientAuthentication(orgId, clientId, client);
    await recordAdminEvent(tx, now, orgId, operator, 'client.authentication_changed', {
      client_id: clientId,
      from: before.authMethod,
      ...authenticationNotes(client),
    });
    return { client, secret: keyed ? undefined : secret };
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
