import { costCeilingBreach } from './cost-ceilings.ts';
import { parsePasswordHash } from './parse-password-hash.ts';
import type { PasswordHash } from './password-hash.ts';

/**
 * Whether a stored hash costs more than today's ceilings (cost-ceilings.ts): one imported under
 * an earlier release's higher ceilings. Such a hash is never verified — each guess at it would
 * hold a hash thread for seconds, and its failures could not be answered within the failure
 * time — so its person cannot log in with that password until it is replaced; the persons list
 * names them (GET /persons?credential=over_budget). Decided from the hash's own parameters at
 * every read, so a change of the ceilings needs no migration of stored rows.
 */
export function isOverBudget(storedHash: string | PasswordHash): boolean {
  return costCeilingBreach(typeof storedHash === 'string' ? parsePasswordHash(storedHash) : storedHash) !== undefined;
}
