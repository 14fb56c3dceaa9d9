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

/**
 * Runs the loads in turn, `rounds` times over, and merges each one's rounds: a drift of this
 * shared machine (another tenant's burst) then falls on every load alike instead of on the one
 * that happened to run at the time. CPU per request and req/s are exact over the rounds; p50 is
 * the median of the rounds' and p99 the worst of them.
 */
export async function interleaved<T extends LoadResult & { cpuUs: number }>(
  loads: readonly ((seconds: number) => Promise<T>)[],
  seconds: number,
  rounds: number,
): Promise<T[]> {
  const parts: T[][] = loads.map(() => []);
  const each = Math.max(1, Math.round(seconds / rounds));
  for (let round = 0; round < rounds; round++) {
    for (const [i, run] of loads.entries()) parts[i]!.push(await run(each));
  }
  return parts.map(merge);
}

function merge<T extends LoadResult & { cpuUs: number }>(parts: readonly T[]): T {
  const requests = parts.reduce((sum, p) => sum + p.requests, 0);
  const middle = [...parts.map((p) => p.p50)].sort((a, b) => a - b)[Math.floor(parts.length / 2)]!;
  const statuses: Record<string, number> = {};
  for (const part of parts) for (const [code, count] of Object.entries(part.statuses)) statuses[code] = (statuses[code] ?? 0) + count;
  return {
    ...parts[0]!,
    requests,
    rps: Math.round(parts.reduce((sum, p) => sum + p.rps, 0) / parts.length),
    cpuUs: parts.reduce((sum, p) => sum + p.cpuUs * p.requests, 0) / Math.max(requests, 1),
    p50: middle,
    p99: Math.max(...parts.map((p) => p.p99)),
    non2xx: parts.reduce((sum, p) => sum + p.non2xx, 0),
    errors: parts.reduce((sum, p) => sum + p.errors, 0),
    statuses,
  };
}
