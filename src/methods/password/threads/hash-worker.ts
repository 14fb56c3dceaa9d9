import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { computeHashJob, type HashJob, passwordOf } from './hash-job.ts';

export interface HashWorkerData {
  /** The nice value this thread asks for (hash-threads.ts says why). */
  nice: number;
}

/** A thread runs one job at a time, so a reply answers the job its thread was last sent. */
export type HashReply = { digest: Uint8Array } | { error: string };

// On Linux the nice value belongs to the thread (setpriority(2), "Bugs"), so this lowers only
// this hash thread. Elsewhere it would lower the whole process, the event loop included.
if (process.platform === 'linux') {
  try {
    setPriority((workerData as HashWorkerData).nice);
  } catch {
    // Refused (a seccomp profile, say): hashing still works, at normal priority.
  }
}

parentPort!.on('message', (job: HashJob) => {
  let reply: HashReply;
  const transfer: ArrayBuffer[] = [];
  try {
    // An exact copy back, for the same reason as detachedJob: a pooled result's slab holds
    // earlier jobs' passwords (bcrypt's hashSync builds its string through one).
    const digest = new Uint8Array(computeHashJob(job));
    transfer.push(digest.buffer);
    reply = { digest };
  } catch (error) {
    reply = { error: error instanceof Error ? error.message : String(error) };
  } finally {
    passwordOf(job).fill(0);
  }
  parentPort!.postMessage(reply, transfer);
});
