import { Worker } from 'node:worker_threads';
import type { HashWorkerJob } from './hash-worker.ts';

const WORKER = new URL('./hash-worker.ts', import.meta.url);

/**
 * A hash computed in JavaScript, in a worker thread of its own: it takes tens of milliseconds
 * at low costs and seconds at high ones, which must not stall the event loop. Only rare hashes
 * come here ($2a$/$2x$ with 8-bit passwords, Argon2 1.0), so a worker per job costs little;
 * the work pool bounds how many run at once.
 */
export function runHashWorker(job: HashWorkerJob): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER, { workerData: job });
    let settled = false;
    worker.once('message', (digest: Uint8Array) => {
      settled = true;
      resolve(digest);
    });
    worker.once('error', reject);
    worker.once('exit', (code) => {
      if (!settled) reject(new Error(`hash worker exited with code ${code} before answering`));
    });
  });
}
