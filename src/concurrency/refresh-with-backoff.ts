import { detached } from '../telemetry/spans.ts';

/** Sets a timer and returns how to cancel it; injectable so tests need not wait for real time. */
export type Schedule = (run: () => void, delayMs: number) => () => void;

/**
 * setTimeout, unref'd: a pending refresh never keeps the process alive. The refresh runs in no
 * request's trace, whichever request's work scheduled it.
 */
export const realSchedule: Schedule = (run, delayMs) => {
  const timer = setTimeout(() => detached(run), delayMs);
  timer.unref();
  return () => clearTimeout(timer);
};

/**
 * Exponential back-off after consecutive failures: `initialMs`, doubling, at most `maxMs`;
 * a success starts over. Knows when the next attempt is due, for callers that retry lazily.
 */
export class Backoff {
  readonly #initialMs: number;
  readonly #maxMs: number;
  #failures = 0;
  #retryAt = 0;

  constructor(options: { initialMs: number; maxMs: number }) {
    this.#initialMs = options.initialMs;
    this.#maxMs = options.maxMs;
  }

  /** Records a failure at `now`; returns the delay before the next attempt. */
  failed(now = 0): number {
    this.#failures += 1;
    const delayMs = Math.min(this.#maxMs, this.#initialMs * 2 ** (this.#failures - 1));
    this.#retryAt = now + delayMs;
    return delayMs;
  }

  succeeded(): void {
    this.#failures = 0;
    this.#retryAt = 0;
  }

  /** Whether, at `now`, the last failure's delay has not run out yet. */
  waiting(now: number): boolean {
    return now < this.#retryAt;
  }
}

/**
 * Renews something in the background: `refreshIn(ms)` schedules one `refresh()`; when that
 * fails, it is tried again after the back-off's delay, and so on until one succeeds (the
 * refresh itself schedules the next renewal). Only one renewal is ever pending.
 */
export class BackgroundRefresh {
  readonly #refresh: () => Promise<unknown>;
  readonly #backoff: Backoff;
  readonly #schedule: Schedule;
  #cancel: (() => void) | undefined;

  constructor(refresh: () => Promise<unknown>, backoff: Backoff, schedule: Schedule = realSchedule) {
    this.#refresh = refresh;
    this.#backoff = backoff;
    this.#schedule = schedule;
  }

  refreshIn(delayMs: number): void {
    this.#cancel?.();
    this.#cancel = this.#schedule(() => {
      this.#refresh().catch(() => this.refreshIn(this.#backoff.failed()));
    }, delayMs);
  }

  stop(): void {
    this.#cancel?.();
    this.#cancel = undefined;
  }
}
