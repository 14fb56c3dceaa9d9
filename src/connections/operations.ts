import type { Static } from 'typebox';
import { type Operator, operatorFields } from '../audit/admin-events.ts';
import { hashSecret, newId, newSecret } from '../crypto/ids.ts';
import type { SecretBox } from '../crypto/secret-box.ts';
import { hostProblem } from '../egress/address-policy.ts';
import { ApiError, invalidField } from '../errors/api-error.ts';
import type { AuditStore } from '../store/audit/store.ts';
import type { ConnectionStore, IdentityConnection } from '../store/connections/store.ts';
import type { OrganizationStore } from '../store/organizations/store.ts';
import type { TransactionalStore } from '../store/store.ts';
import { recordDirectoryEvent } from './audit.ts';
import { baseUrlProblem, type NewConnection } from './schemas.ts';

/** What the operations on connections need, whichever door (API key, console) they come through. */
export interface ConnectionDeps {
  store: ConnectionStore & OrganizationStore & AuditStore & TransactionalStore;
  /** Seals scim_pull bearer tokens (connections/sealing.ts). */
  box: SecretBox;
  /** TESSERA_DEV: a scim_pull base_url may then be loopback http. */
  dev: boolean;
  now: () => number;
}

export const connectionNotFound = () => new ApiError('NOT_FOUND', 'path.connection_id: no connection of this organisation has this id');

/**
 * Connects a directory: the rules JSON Schema cannot say (which fields go with which type, where
 * base_url may point), then the connection and its audit event. A scim connection's token is
 * returned here only; the store keeps its hash.
 */
export async function createConnection(
  { store, box, dev, now }: ConnectionDeps,
  orgId: string,
  { name, type, base_url, bearer_token }: Static<typeof NewConnection>,
  operator: Operator,
): Promise<{ connection: IdentityConnection; scimToken: string | undefined }> {
  if (type === 'scim') {
    if (base_url !== undefined) throw invalidField('body.base_url', 'is only for type scim_pull');
    if (bearer_token !== undefined) throw invalidField('body.bearer_token', 'is only for type scim_pull');
  } else {
    if (base_url === undefined) throw invalidField('body.base_url', 'is required for type scim_pull');
    if (bearer_token === undefined) throw invalidField('body.bearer_token', 'is required for type scim_pull');
    const problem = baseUrlProblem(base_url, dev) ?? (await hostProblem(new URL(base_url), { allowLoopback: dev }));
    if (problem) throw invalidField('body.base_url', problem);
  }
  const token = type === 'scim' ? newSecret('tscim') : undefined;
  const at = now();
  const connection: IdentityConnection = {
    id: newId('con', at),
    orgId,
    name,
    type,
    tokenHash: token ? hashSecret(token) : null,
    // Stored without a trailing slash, so `${baseUrl}/Users` is always one slash.
    baseUrl: base_url?.replace(/\/+$/, '') ?? null,
    sealedBearerToken: bearer_token ? box.seal(bearer_token) : null,
    createdAt: at,
  };
  await store.inTransaction(async (tx) => {
    await tx.createConnection(connection);
    await recordDirectoryEvent(tx, now, orgId, 'connection.created', { connection_id: connection.id, name, type, ...operatorFields(operator) });
  });
  return { connection, scimToken: token };
}

/** Gives a scim connection a new token, returned here only: the old one stops working at once. */
export async function rotateScimToken({ store, now }: ConnectionDeps, orgId: string, connectionId: string, operator: Operator): Promise<string> {
  const connection = await store.getConnection(orgId, connectionId);
  if (!connection) throw connectionNotFound();
  if (connection.type !== 'scim')
    throw new ApiError('CONFLICT', 'path.connection_id: a scim_pull connection has no scim_token; recreate it to change its bearer_token');
  const token = newSecret('tscim');
  await store.inTransaction(async (tx) => {
    if (!(await tx.replaceConnectionToken(orgId, connection.id, hashSecret(token)))) throw connectionNotFound();
    await recordDirectoryEvent(tx, now, orgId, 'connection.scim_token_rotated', { connection_id: connection.id, ...operatorFields(operator) });
  });
  return token;
}

/** Deletes a connection with every identity it holds, and says so in the audit log. */
export async function removeConnection({ store, now }: ConnectionDeps, orgId: string, connectionId: string, operator: Operator): Promise<void> {
  await store.inTransaction(async (tx) => {
    if (!(await tx.deleteConnection(orgId, connectionId))) throw connectionNotFound();
    await recordDirectoryEvent(tx, now, orgId, 'connection.deleted', { connection_id: connectionId, ...operatorFields(operator) });
  });
}
