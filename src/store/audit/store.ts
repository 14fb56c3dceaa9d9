import type { Page, PageRequest } from '../page.ts';

export interface AuditEvent {
  /** Time-ordered (crypto/ids.ts newId), made from the same clock reading as occurredAt. */
  id: string;
  orgId: string;
  type: string;
  occurredAt: number;
  data: Record<string, unknown>;
}

/** The organisation's audit log: appended to, listed in the order it happened, never changed. */
export interface AuditStore {
  recordAuditEvent(event: AuditEvent): Promise<void>;
  listAuditEvents(orgId: string, type: string | undefined, page: PageRequest): Promise<Page<AuditEvent>>;
}
