import { Worker } from 'node:worker_threads';
import { detachedJob, type HashJob } from './hash-job.ts';
import type { HashReply, HashWorkerData } from './hash-worker.ts';

const WORKER = new URL('./hash-worker.ts', import.meta.url);

/**
 * Long-lived worker threads that do the password-hash work, one job per thread at a time.
 *
 * Why threads of our own rather than libuv's pool (crypto.argon2's async form): libuv's four
 * threads also serve file and DNS work, which a burst of logins would stall; and our threads
 * can be given a lower scheduling priority. On a small machine the hash threads use every
 * core, and at equal priority the event loop then waits its turn behind them, so the token
 * endpoint's latency grows with the logins. Reniced (nice 10 by default), the hash threads
 * still take every idle cycle but yield at once when the event loop has a request.
 */
export class HashThreads {
  readonly #nice: number;
  readonly #idle: Worker[] = [];
  readonly #busy = new Map<Worker, { resolve: (digest: Uint8Array) => void; reject: (error: Error) => void }>();
  #closed = false;

  constructor(nice: number) {
    this.#nice = nice;
  }

  /** Threads started and not ended (idle or busy). */
  get size(): number {
    return this.#idle.length + this.#busy.size;
  }

  /** Runs `job` on an idle thread, starting one if none is idle; the caller bounds how many run at once. */
  compute(job: HashJob): Promise<Uint8Array> {
    if (this.#closed) return Promise.reject(new Error('hash threads are closed'));
    const worker = this.#idle.pop() ?? this.#start();
    // A thread with a job keeps the process alive, as any pending I/O does; an idle one does not.
    worker.ref();
    const detached = detachedJob(job);
    return new Promise((resolve, reject) => {
      this.#busy.set(worker, { resolve, reject });
      worker.postMessage(detached.job, detached.transfer);
    });
  }

  /** Ends every thread; a job still running is rejected. */
  async close(): Promise<void> {
    this.#closed = true;
    const all = [...this.#idle, ...this.#busy.keys()];
    this.#idle.length = 0;
    await Promise.all(all.map((worker) => worker.terminate()));
  }

  #start(): Worker {
    const worker = new Worker(WORKER, { workerData: { nice: this.#nice } satisfies HashWorkerData });
    worker.on('message', (reply: HashReply) => {
      const waiting = this.#busy.get(worker);
      this.#busy.delete(worker);
      worker.unref();
      if (!this.#closed) this.#idle.push(worker);
      if ('error' in reply) waiting?.reject(new Error(`password hash failed: ${reply.error}`));
      else waiting?.resolve(reply.digest);
    });
    const lost = (error: Error) => {
      const waiting = this.#busy.get(worker);
      this.#busy.delete(worker);
      const at = this.#idle.indexOf(worker);
      if (at >= 0) this.#idle.splice(at, 1);
      waiting?.reject(error);
    };
    worker.on('error', lost);
    worker.on('exit', (code) => lost(new Error(`hash thread exited with code ${code}`)));
    return worker;
  }
}
