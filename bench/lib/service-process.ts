import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { freePort, rssMiB } from './ports.ts';

const cli = fileURLToPath(new URL('../../src/cli.ts', import.meta.url));

export interface ServiceProcess {
  url: string;
  child: ChildProcess;
  /** Resident set size of the service process, in MiB, read from /proc. */
  rssMiB(): number;
  stop(): Promise<void>;
}

/** The service in a process of its own, so the load generator does not share its event loop. */
export async function startServiceProcess(env: Record<string, string>): Promise<ServiceProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--disable-warning=ExperimentalWarning', cli, 'service'], {
    // BENCH_SERVICE_NODE_OPTIONS reaches the service only, e.g. --cpu-prof for a profile under load.
    env: { PATH: process.env.PATH ?? '', NODE_OPTIONS: process.env.BENCH_SERVICE_NODE_OPTIONS ?? '', TESSERA_PORT: String(port), TESSERA_LOG_LEVEL: 'warn', TESSERA_SECRET: 'bench-secret-bench-secret-bench-secret', ...env },
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
    rssMiB: () => rssMiB(child.pid),
    async stop() {
      child.kill('SIGTERM');
      if (child.exitCode === null) await new Promise((resolve) => child.once('exit', resolve));
    },
  };
}
