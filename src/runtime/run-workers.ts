import cluster, { type Worker } from 'node:cluster';
import { availableParallelism } from 'node:os';

/** The rule TESSERA_WORKERS and GATEWAY_WORKERS share. */
export const WORKERS_RULE = 'an integer from 1 to 64, or auto (one per available core)';
const MAX_WORKERS = 64;

/** `auto` → os.availableParallelism(); a whole number 1–64 as given; anything else undefined (invalid). */
export function parseWorkers(value: string): number | undefined {
  if (value === 'auto') return Math.min(MAX_WORKERS, availableParallelism());
  if (!/^[1-9][0-9]?$/.test(value)) return undefined;
  const count = Number(value);
  return count <= MAX_WORKERS ? count : undefined;
}

/** A worker that dies sooner than this after starting is not restarted: it would only die again. */
const CRASH_LOOP_MS = 10_000;

export interface WorkerReport {
  /** The primary's own lines: how many workers run, which one died. */
  info(message: string): void;
  error(message: string): void;
}

/**
 * Runs `start` in `count` processes listening on one port (node:cluster: the primary accepts
 * connections and hands each to a worker, so port 0 and every platform work alike). They
 * share nothing but the database, as replicas do. In the primary this resolves once every
 * worker listens, and the primary stays to restart a worker that dies after it started and
 * to pass SIGINT/SIGTERM on, exiting when all have stopped; `count` 1 runs `start` here.
 * Returns true in the process that should go on to start the server itself. A worker is
 * ready once its `serversPerWorker` servers listen (the gateway has its proxy and admin ports).
 */
export async function runWorkers(count: number, serversPerWorker: number, report: WorkerReport): Promise<boolean> {
  if (count <= 1 || cluster.isWorker) return true;
  const startedAt = new Map<Worker, number>();
  const listens = new Map<Worker, number>();
  const ports = new Set<number>();
  let ready = 0;
  let stopping = false;
  const fork = () => startedAt.set(cluster.fork(), Date.now());
  const stopAll = (signal: NodeJS.Signals) => {
    // Once: the workers are draining, bounded by their own shutdown timeout; a repeated signal
    // (the whole group signalled, a second Ctrl+C) must not kill them mid-drain.
    if (stopping) return;
    stopping = true;
    for (const worker of startedAt.keys()) worker.process.kill(signal);
  };
  const allListening = new Promise<void>((resolve, reject) => {
    cluster.on('listening', (worker, address) => {
      ports.add(address.port);
      const servers = (listens.get(worker) ?? 0) + 1;
      listens.set(worker, servers);
      if (servers === serversPerWorker && ++ready === count) resolve();
    });
    cluster.on('exit', (worker, code, signal) => {
      const since = startedAt.get(worker) ?? 0;
      const listened = listens.get(worker) === serversPerWorker;
      startedAt.delete(worker);
      listens.delete(worker);
      if (listened) ready--;
      if (stopping) {
        if (startedAt.size === 0) process.exit(process.exitCode ?? 0);
        return;
      }
      const how = signal ? `signal ${signal}` : `exit status ${code}`;
      if (!listened || Date.now() - since < CRASH_LOOP_MS) {
        report.error(`worker ${worker.process.pid} stopped with ${how} ${listened ? 'soon after starting' : 'before it listened'}; stopping the others`);
        process.exitCode = 1;
        stopAll('SIGTERM');
        if (startedAt.size === 0) process.exit(1);
        reject(new Error('a worker could not start'));
        return;
      }
      report.error(`worker ${worker.process.pid} stopped with ${how}; starting another`);
      fork();
    });
  });
  for (let i = 0; i < count; i++) fork();
  process.on('SIGINT', () => stopAll('SIGINT'));
  process.on('SIGTERM', () => stopAll('SIGTERM'));
  await allListening;
  report.info(`${count} workers listening on port ${[...ports].join(' and ')} (pids ${[...startedAt.keys()].map((w) => w.process.pid).join(', ')})`);
  return false;
}
