import { readFileSync } from 'node:fs';

/** Resident memory of a process in MiB, from /proc (Linux); undefined once it has ended. */
export function residentMiB(pid: number): number | undefined {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Math.round(Number(match[1]) / 1024) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Memory "returned to its baseline": at rest after the load, a process holds at most a quarter
 * more than it did at rest after the warm-up, plus 16 MiB of slack for V8's heap sizing, which
 * grows under load and is given back lazily. A leak of a request's worth of memory per request
 * grows far past that in a run of minutes.
 */
export function withinBaseline(baselineMiB: number, endMiB: number): boolean {
  return endMiB <= baselineMiB * 1.25 + 16;
}

/**
 * The replica that was not killed carries the whole load while its peer is down, and V8 keeps
 * the heap it grew for that (RSS does not shrink back). That is a new high-water mark, not a
 * leak: a leak keeps climbing. So when the survivor ends above its baseline, it must at least
 * end within 10 % of the highest it reached in the first half of the run, while the gateways
 * must be back at their own baselines.
 */
export function levelsOff(survivorTrend: readonly number[], memory: readonly { process: string; baselineMiB: number; endMiB: number }[]): boolean {
  const [survivor, ...others] = memory;
  const firstHalf = survivorTrend.slice(0, Math.max(1, Math.floor(survivorTrend.length / 2)));
  return survivor !== undefined && survivor.endMiB <= Math.max(...firstHalf) * 1.1 && others.every((m) => withinBaseline(m.baselineMiB, m.endMiB));
}
