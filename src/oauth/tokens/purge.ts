import { every } from '../../concurrency/every.ts';
import { deleteInBatches } from '../../concurrency/in-batches.ts';
import type { TokenStore } from '../../store/tokens/store.ts';

/**
 * Deletes expired opaque tokens every `everyMs` (TESSERA_TOKEN_PURGE_INTERVAL). An exchanged
 * token never outlives the token it came from, so no revocation cascade can need an expired row.
 *
 * A purge of a million rows must not stall the requests around it (on SQLite a delete runs on
 * the event loop and holds the write lock): it deletes 1,000 rows at a time and rests four times
 * as long as that took. Replicas may purge at the same time: deleting is idempotent.
 * Returns a function that stops the timer and any purge in progress.
 */
export function purgeExpiredTokens(store: TokenStore, everyMs: number, onError: (error: unknown) => void, now: () => number = Date.now): () => void {
  // Tokens are stored in the order they were issued (opaque-token.ts): the rows that expire
  // together sit together, and a batch touches few pages.
  return every(everyMs, (stopped) => deleteInBatches((limit) => store.deleteExpiredTokens(now(), limit), stopped), onError);
}
