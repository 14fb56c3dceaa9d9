export interface BoundedAdmissionOptions {
  /** Jobs running at once. */
  concurrency: number;
  /** Jobs waiting for a slot before new ones are refused. */
  maxQueued: number;
  /** The error a job is refused with when the queue is full. */
  refuse: () => Error;
}

/**
 * At most `concurrency` jobs at once, at most `maxQueued` waiting in order, and a full queue
 * refuses at once rather than growing: for work that is costly per job (a password hash), so
 * that callers retry elsewhere instead of waiting behind minutes of work.
 */
export class BoundedAdmission {
  readonly concurrency: number;
  readonly maxQueued: number;
  readonly #refuse: () => Error;
  #running = 0;
  readonly #waiting: Array<() => void> = [];
  readonly #drained: Array<() => void> = [];

  constructor({ concurrency, maxQueued, refuse }: BoundedAdmissionOptions) {
    if (!Number.isInteger(concurrency) || concurrency < 1) throw new RangeError('concurrency must be a positive integer');
    if (!Number.isInteger(maxQueued) || maxQueued < 0) throw new RangeError('maxQueued must be a non-negative integer');
    this.concurrency = concurrency;
    this.maxQueued = maxQueued;
    this.#refuse = refuse;
  }

  get running(): number {
    return this.#running;
  }

  get queued(): number {
    return this.#waiting.length;
  }

  /** Runs `work` when a slot is free; rejects with `refuse()` when the queue is full. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.#running < this.concurrency) {
      this.#running++;
    } else {
      if (this.#waiting.length >= this.maxQueued) throw this.#refuse();
      // The finishing job hands its slot straight over, so #running stays counted.
      await new Promise<void>((resolve) => this.#waiting.push(resolve));
    }
    try {
      return await work();
    } finally {
      const next = this.#waiting.shift();
      if (next) next();
      else this.#running--;
      if (this.#running === 0) for (const resolve of this.#drained.splice(0)) resolve();
    }
  }

  /** Resolves once no job is running or queued (at once if none is). */
  drained(): Promise<void> {
    if (this.#running === 0) return Promise.resolve();
    return new Promise((resolve) => this.#drained.push(resolve));
  }
}
