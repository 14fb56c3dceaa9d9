import { setTimeout as sleep } from 'node:timers/promises';

/** Rows per delete of a purge: a few milliseconds of the write lock (SQLite runs it on the event loop). */
export const PURGE_BATCH = 1_000;
/**
 * Rows a request's own sweep deletes at most (a ceremony's start clears expired ones): bounded
 * work on a request's path, however many a flood left; the purge timer takes the rest.
 */
export const SWEEP_LIMIT = 100;
/** A purge rests this many times as long as a batch took, so it takes at most a fifth of the time. */
const REST_FACTOR = 4;
const MIN_REST_MS = 5;

/**
 * Calls `deleteBatch` until a batch comes back short, resting between batches, so that a purge of
 * a million rows (a stranger's flood) never stalls the requests around it. Returns how many.
 */
export async function deleteInBatches(deleteBatch: (limit: number) => Promise<number>, stopped: () => boolean = () => false): Promise<number> {
  let total = 0;
  while (!stopped()) {
    const started = performance.now();
    const deleted = await deleteBatch(PURGE_BATCH);
    total += deleted;
    if (deleted < PURGE_BATCH) break;
    await sleep(Math.max(MIN_REST_MS, (performance.now() - started) * REST_FACTOR));
  }
  return total;
}
