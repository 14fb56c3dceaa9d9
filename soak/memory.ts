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
