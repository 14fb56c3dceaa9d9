import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const cli = fileURLToPath(new URL('../../src/cli.ts', import.meta.url));

export interface ServiceProcess {
  url: string;
  child: ChildProcess;
  /** Resident set size of the service process, in MiB, read from /proc. */
  rssMiB(): number;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** The service in a process of its own, so the load generator does not share its event loop. */
export async function startServiceProcess(env: Record<string, string>): Promise<ServiceProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--disable-warning=ExperimentalWarning', cli, 'service'], {
    env: { PATH: process.env.PATH ?? '', TESSERA_PORT: String(port), TESSERA_LOG_LEVEL: 'warn', TESSERA_SECRET: 'bench-secret-bench-secret-bench-secret', ...env },
    // The service's logs go to stderr, so that stdout stays the Markdown report.
    stdio: ['ignore', process.stderr, process.stderr],
  });
  const url = `http://127.0.0.1:${port}`;
  for (let attempt = 0; ; attempt++) {
    if (child.exitCode !== null) throw new Error(`the service exited with ${child.exitCode}`);
    const healthy = await fetch(`${url}/healthz`).then((r) => r.ok, () => false);
    if (healthy) break;
    if (attempt > 100) throw new Error('the service did not become healthy in 10 s');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    url,
    child,
    rssMiB() {
      const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
      return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) / 1024;
    },
    async stop() {
      child.kill('SIGTERM');
      if (child.exitCode === null) await new Promise((resolve) => child.once('exit', resolve));
    },
  };
}
