import { availableParallelism } from 'node:os';
import { ApiError } from '../../errors/api-error.ts';

export interface HashWorkPoolOptions {
  /** Verifications running at once; default the cores available (os.availableParallelism()). */
  concurrency?: number;
  /** Verifications waiting for a slot before new ones are refused; default 16 per slot (a worst-case wait of about 0.7 s at OWASP parameters on two cores). */
  maxQueued?: number;
  /** Seconds sent in Retry-After when the queue is full; default 1. */
  retryAfterSeconds?: number;
}

/**
 * The answer when the queue is full: 503 `PASSWORD_CHECKS_BUSY` with `Retry-After`. An
 * ApiError, so the routes' error handler answers it as it is.
 */
export function passwordChecksBusy(retryAfterSeconds: number): ApiError {
  return new ApiError('PASSWORD_CHECKS_BUSY', 'service: too many password checks are running; retry after the delay', {
    'Retry-After': String(retryAfterSeconds),
  });
}

/**
 * Bounds concurrent password-hash work. Each verification holds memory (up to 256 MiB for
 * argon2) and a thread of libuv's pool or a worker for its whole run, so a burst of logins
 * must queue rather than all start; and a queue that is full refuses at once (503) rather than
 * growing, so callers retry elsewhere instead of waiting behind minutes of work.
 */
export class HashWorkPool {
  readonly concurrency: number;
  readonly maxQueued: number;
  readonly retryAfterSeconds: number;
  #running = 0;
  readonly #waiting: Array<() => void> = [];

  constructor(options: HashWorkPoolOptions = {}) {
    this.concurrency = options.concurrency ?? availableParallelism();
    this.maxQueued = options.maxQueued ?? 16 * this.concurrency;
    this.retryAfterSeconds = options.retryAfterSeconds ?? 1;
    if (!Number.isInteger(this.concurrency) || this.concurrency < 1) throw new RangeError('HashWorkPool concurrency must be a positive integer');
    if (!Number.isInteger(this.maxQueued) || this.maxQueued < 0) throw new RangeError('HashWorkPool maxQueued must be a non-negative integer');
  }

  get running(): number {
    return this.#running;
  }

  get queued(): number {
    return this.#waiting.length;
  }

  /** Runs `work` when a slot is free; rejects with passwordChecksBusy() when the queue is full. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.#running < this.concurrency) {
      this.#running++;
    } else {
      if (this.#waiting.length >= this.maxQueued) throw passwordChecksBusy(this.retryAfterSeconds);
      // The finishing job hands its slot straight over, so #running stays counted.
      await new Promise<void>((resolve) => this.#waiting.push(resolve));
    }
    try {
      return await work();
    } finally {
      const next = this.#waiting.shift();
      if (next) next();
      else this.#running--;
    }
  }
}
