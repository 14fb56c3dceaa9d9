import { keysetPage } from '../keyset-page.ts';
import type { Page, PageRequest } from '../page.ts';
import { type Json, json, time } from '../rows.ts';
import type { SqlDriver } from '../sql-driver.ts';
import type { AuditEvent, AuditStore } from './store.ts';

interface AuditEventRow {
  id: string;
  org_id: string;
  type: string;
  occurred_at: number;
  data: Json;
}

function toAuditEvent(row: AuditEventRow): AuditEvent {
  return { id: row.id, orgId: row.org_id, type: row.type, occurredAt: time(row.occurred_at), data: json(row.data) };
}

/** The audit store over either SQL dialect: table audit_events. */
export function sqlAuditStore(db: SqlDriver): AuditStore {
  return {
    async recordAuditEvent(event: AuditEvent): Promise<void> {
      await db.run('INSERT INTO audit_events (id, org_id, type, occurred_at, data) VALUES ($1, $2, $3, $4, $5)', [
        event.id,
        event.orgId,
        event.type,
        event.occurredAt,
        JSON.stringify(event.data),
      ]);
    },

    listAuditEvents(orgId: string, type: string | undefined, page: PageRequest): Promise<Page<AuditEvent>> {
      const filter = type ? { column: 'type' as const, value: type } : undefined;
      return keysetPage<AuditEventRow, AuditEvent>(db, 'audit_events', orgId, page, toAuditEvent, filter);
    },
  };
}
