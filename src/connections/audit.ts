import { newId } from '../crypto/ids.ts';
import type { AuditStore } from '../store/audit/store.ts';

/** The audit event types of connections and of the SCIM changes made through them. */
export type DirectoryEventType =
  | 'connection.created'
  | 'connection.deleted'
  | 'connection.scim_token_rotated'
  | 'scim.user.created'
  | 'scim.user.replaced'
  | 'scim.user.patched'
  | 'scim.user.deleted';

/**
 * Records one change to a connection or its directory. Callers pass ids, names, userName,
 * active and PATCH paths; never a token, a password or an attribute value beyond those.
 */
export async function recordDirectoryEvent(
  store: AuditStore,
  now: () => number,
  orgId: string,
  type: DirectoryEventType,
  data: Record<string, unknown>,
): Promise<void> {
  const at = now();
  await store.recordAuditEvent({ id: newId('evt', at), orgId, type, occurredAt: at, data });
}
