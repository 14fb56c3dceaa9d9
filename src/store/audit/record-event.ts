import { newId } from '../../crypto/ids.ts';
import type { AuditStore } from './store.ts';

/**
 * Appends one event to the organisation's audit log at `at`: the id is made from the same
 * clock reading, so the log's order is the order things happened.
 */
export function recordEvent(store: AuditStore, at: number, orgId: string, type: string, data: Record<string, unknown>): Promise<void> {
  return store.recordAuditEvent({ id: newId('evt', at), orgId, type, occurredAt: at, data });
}
