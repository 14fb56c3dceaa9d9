import { setTimeout as sleep } from 'node:timers/promises';
import type { Store } from '../../store/store.ts';

/**
 * Rows per delete. Tokens are stored in the order they were issued (opaque-token.ts), so the
 * rows that expire together sit together and a batch touches few pages: a few milliseconds.
 */
const BATCH = 1_000;
/** The purge rests this many times as long as a batch took, so it takes at most a fifth of the time. */
const REST_FACTOR = 4;
const MIN_REST_MS = 5;

/**
 * Deletes expired opaque tokens every `everyMs` (TESSERA_TOKEN_PURGE_INTERVAL). An exchanged
 * token never outlives the token it came from, so no revocation cascade can need an expired row.
 *
 * A purge of a million rows must not stall the requests around it (on SQLite a delete runs on
 * the event loop and holds the write lock): it deletes 1,000 rows at a time and rests four times
 * as long as that took. Replicas may purge at the same time: deleting is idempotent.
 * Returns a function that stops the timer and any purge in progress.
 */
export function purgeExpiredTokens(store: Store, everyMs: number, onError: (error: unknown) => void, now: () => number = Date.now): () => void {
  let running = false;
  let stopped = false;
  const purge = async () => {
    while (!stopped) {
      const started = performance.now();
      if ((await store.deleteExpiredTokens(now(), BATCH)) < BATCH) return;
      await sleep(Math.max(MIN_REST_MS, (performance.now() - started) * REST_FACTOR));
    }
  };
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    purge()
      .catch((error: unknown) => {
        // A purge cut short by shutdown is not a failure; the next start-up finishes it.
        if (!stopped) onError(error);
      })
      .finally(() => {
        running = false;
      });
  }, everyMs);
  timer.unref();
  return () => {
    stopped = true;
    clearInterval(timer);
  };
}
