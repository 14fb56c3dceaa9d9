import { lockOrganization } from '../organizations/sql.ts';
import type { SqlDriver, SqlExecutor } from '../sql-driver.ts';

/** A person who can administer the organisation in its console: the admin role and console membership. */
export function isConsoleAdmin(person: { roles: readonly string[]; console: boolean }): boolean {
  return person.console && person.roles.includes('admin');
}

/**
 * Whether the organisation keeps a console administrator besides `personId`, decided under
 * the organisation's lock (taken here, before any person's row, so two changes of this kind
 * queue instead of deadlocking): of two administrators demoting each other at once, the
 * second sees the first's change and is refused, rather than both passing a check made
 * before either wrote. Call it first in the transaction that makes the change.
 */
export async function keepsAnotherConsoleAdmin(dialect: SqlDriver['dialect'], tx: SqlExecutor, orgId: string, personId: string): Promise<boolean> {
  await lockOrganization(dialect, tx, orgId);
  const hasAdminRole = dialect === 'postgres' ? `roles ? 'admin'` : `EXISTS (SELECT 1 FROM json_each(roles) WHERE value = 'admin')`;
  const [row] = await tx.all<{ id: string }>(`SELECT id FROM persons WHERE org_id = $1 AND id <> $2 AND console = $3 AND ${hasAdminRole} LIMIT 1`, [
    orgId,
    personId,
    true,
  ]);
  return row !== undefined;
}
