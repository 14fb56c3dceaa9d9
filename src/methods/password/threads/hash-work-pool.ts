import { availableParallelism } from 'node:os';
import { BoundedAdmission } from '../../../concurrency/bounded-admission.ts';
import { ApiError } from '../../../errors/api-error.ts';
import type { HashJob } from './hash-job.ts';
import { HashThreads } from './hash-threads.ts';

export interface HashWorkPoolOptions {
  /** Hash jobs running at once, each on a thread of its own; default the cores available (os.availableParallelism()). */
  concurrency?: number;
  /** Jobs waiting for a thread before new ones are refused; default 16 per thread (a worst-case wait of about 0.7 s at OWASP parameters on two cores). */
  maxQueued?: number;
  /** Seconds sent in Retry-After when the queue is full; default 1. */
  retryAfterSeconds?: number;
  /** The hash threads' nice value on Linux, 0–19; default 10 (hash-threads.ts says why). */
  nice?: number;
}

export const DEFAULT_HASH_THREAD_NICE = 10;

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
 * Where all password-hash work runs: a bounded queue in front of hash threads of a lower
 * priority. Each verification holds memory (up to 256 MiB for argon2) and a thread for its
 * whole run, so a burst of logins queues rather than all starting, and a full queue answers
 * 503 at once. Close it with the service, which ends its threads.
 */
export class HashWorkPool {
  readonly retryAfterSeconds: number;
  readonly #admission: BoundedAdmission;
  readonly #threads: HashThreads;
  #closing = false;

  constructor(options: HashWorkPoolOptions = {}) {
    const concurrency = options.concurrency ?? availableParallelism();
    const nice = options.nice ?? DEFAULT_HASH_THREAD_NICE;
    if (!Number.isInteger(nice) || nice < 0 || nice > 19) throw new RangeError('HashWorkPool nice must be an integer from 0 to 19');
    this.retryAfterSeconds = options.retryAfterSeconds ?? 1;
    this.#admission = new BoundedAdmission({
      concurrency,
      maxQueued: options.maxQueued ?? 16 * concurrency,
      refuse: () => passwordChecksBusy(this.retryAfterSeconds),
    });
    this.#threads = new HashThreads(nice);
  }

  get concurrency(): number {
    return this.#admission.concurrency;
  }

  get maxQueued(): number {
    return this.#admission.maxQueued;
  }

  get running(): number {
    return this.#admission.running;
  }

  get queued(): number {
    return this.#admission.queued;
  }

  /** Hash threads started so far: one per slot ever busy at once, kept for reuse. */
  get threads(): number {
    return this.#threads.size;
  }

  /** Computes `job` on a hash thread when one is free; rejects with passwordChecksBusy() when the queue is full. */
  run(job: HashJob): Promise<Uint8Array> {
    if (this.#closing) return Promise.reject(passwordChecksBusy(this.retryAfterSeconds));
    return this.#admission.run(() => this.#threads.compute(job));
  }

  /**
   * Refuses new jobs (503, so callers retry on another replica), lets those admitted finish —
   * a login under way at shutdown still gets its answer — and then ends the threads.
   */
  async close(): Promise<void> {
    this.#closing = true;
    await this.#admission.drained();
    await this.#threads.close();
  }
}
