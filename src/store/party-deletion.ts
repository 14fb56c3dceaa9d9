import type { SqlDriver, SqlExecutor } from './sql-driver.ts';

/**
 * Work that must commit in the same transaction as the deletion of a party (a person or an
 * OAuth client), such as revoking the party's tokens: a party must never be gone while its
 * tokens still work. The stores that delete parties take a list of these from the composed
 * store, so the persons and clients modules need not know which other modules keep rows
 * about a party, and a new module adds its own step where the stores are composed.
 */
export type PartyDeletionStep = (tx: SqlExecutor, orgId: string, partyId: string, at: number) => Promise<unknown>;

/** Deletes the party's row and runs every step, all in one transaction; false (nothing done) for an unknown id. */
export function deleteParty(
  db: Pick<SqlDriver, 'transaction'>,
  table: 'persons' | 'oauth_clients',
  steps: readonly PartyDeletionStep[],
  orgId: string,
  id: string,
  at: number,
): Promise<boolean> {
  return db.transaction(async (tx) => {
    const deleted = await tx.run(`DELETE FROM ${table} WHERE org_id = $1 AND id = $2`, [orgId, id]);
    if (deleted === 0) return false;
    for (const step of steps) await step(tx, orgId, id, at);
    return true;
  });
}
