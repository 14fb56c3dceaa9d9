import type { LoadResult } from './load.ts';

/** CPU time (user + system) of this process, in seconds: the load generator's. */
export function ownCpuSeconds(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
}

/** Share of one core each process used while `run` ran, so a row bound by another process shows it. */
export async function measureCpu<T>(processes: Record<string, () => number>, run: () => Promise<T>): Promise<{ result: T; cpu: Record<string, number> }> {
  const before = Object.fromEntries(Object.entries(processes).map(([name, read]) => [name, read()]));
  const started = performance.now();
  const result = await run();
  const seconds = (performance.now() - started) / 1000;
  return { result, cpu: Object.fromEntries(Object.entries(processes).map(([name, read]) => [name, (read() - before[name]!) / seconds])) };
}

/**
 * CPU microseconds one process spent per request of a load run: its CPU time (all threads,
 * and its workers') over the run, divided by the requests answered. Unlike req/s it does not
 * depend on how many cores the load generator left over.
 */
export async function cpuPerRequest<T extends LoadResult>(cpuSeconds: () => number, run: () => Promise<T>): Promise<T & { cpuUs: number }> {
  const before = cpuSeconds();
  const result = await run();
  return { ...result, cpuUs: ((cpuSeconds() - before) * 1e6) / Math.max(result.requests, 1) };
}
