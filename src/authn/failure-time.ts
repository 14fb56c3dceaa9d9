import { setTimeout as sleep } from 'node:timers/promises';

/*
 * Design §5 "Failure time": every password failure is answered no sooner than one fixed time
 * after the attempt began, whatever failed — an unknown handle, a person without a password, a
 * wrong password against any kind of stored hash, a hash over the cost ceilings. Verifying an
 * accepted hash costs at most about 0.5 s on the benchmark machine (cost-ceilings.ts), so at the
 * default (DEFAULT_FAILURE_TIME_MS, config/defaults.ts) the time a failure takes is the
 * budget's, not the stored hash's, and tells nothing about which handles exist or what their
 * hashes cost. Successes do not wait.
 *
 * Real time, never the service's clock (tests freeze that one): this is how long a person waits.
 * The wait holds no hash thread; it does hold the source's place among its logins in flight
 * (logins-per-source.ts), so one address gets at most that many guesses per budget.
 */

/** Now, on the clock waitForFailureTime measures from (monotonic, real). */
export function failureClockNow(): number {
  return performance.now();
}

/** Resolves `budgetMs` after `startedAt` (failureClockNow()), or at once when that has passed. */
export async function waitForFailureTime(startedAt: number, budgetMs: number): Promise<void> {
  const left = startedAt + budgetMs - failureClockNow();
  if (left > 0) await sleep(Math.ceil(left));
}
