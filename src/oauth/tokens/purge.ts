import type { Store } from '../../store/store.ts';

const EVERY_MS = 10 * 60_000;
const BATCH = 5_000;

/**
 * Deletes expired opaque tokens now and then. An exchanged token never outlives the token it
 * came from, so no revocation cascade can need an expired row. Replicas may purge at the same
 * time: deleting is idempotent. Returns a function that stops the timer.
 */
export function purgeExpiredTokens(store: Store, onError: (error: unknown) => void, now: () => number = Date.now): () => void {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    void (async () => {
      try {
        while ((await store.deleteExpiredTokens(now(), BATCH)) === BATCH);
      } catch (error) {
        onError(error);
      } finally {
        running = false;
      }
    })();
  }, EVERY_MS);
  timer.unref();
  return () => clearInterval(timer);
}
