import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/** A port free on 127.0.0.1 right now, for a child process to bind. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Resident memory of a process and its children (a service's workers, nginx's), in MiB. */
export function rssMiB(pid: number | undefined): number {
  const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(' ').filter(Boolean);
  return [String(pid), ...children].reduce((sum, each) => sum + ownRssMiB(each), 0);
}

/**
 * One process's resident memory split as the kernel counts it, in MiB: anonymous (heaps,
 * stacks, malloc) and file-backed (the node binary and libraries mapped in, shared with every
 * process that maps them).
 */
export function residentParts(pid: number | undefined): { anonymous: number; file: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0) / 1024;
  return { anonymous: kb('RssAnon'), file: kb('RssFile') + kb('RssShmem') };
}

function ownRssMiB(pid: string): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) / 1024;
}

/** CPU time (user + system) a process and its children (nginx's workers) have used, in seconds. */
export function cpuSeconds(pid: number | undefined): number {
  const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(' ').filter(Boolean);
  return ownCpuSeconds(String(pid)) + children.reduce((sum, child) => sum + ownCpuSeconds(child), 0);
}

function ownCpuSeconds(pid: string): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime and stime, in USER_HZ ticks
}
