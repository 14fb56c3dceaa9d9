/**
 * Runs `run` every `everyMs` until the returned function is called: never twice at once (a run
 * still going when the next is due is not doubled), never keeping the process alive, and a run
 * cut short by the stop is no failure (the next start-up's timer finishes it). `run` is given
 * whether the stop has come, to end between batches.
 */
export function every(everyMs: number, run: (stopped: () => boolean) => Promise<unknown>, onError: (error: unknown) => void): () => void {
  let running = false;
  let stopped = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    run(() => stopped)
      .catch((error: unknown) => {
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
