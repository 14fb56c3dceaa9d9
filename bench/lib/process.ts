import { type ChildProcess, spawn } from 'node:child_process';
import { cpuSeconds, freePort, rssMiB } from './ports.ts';

export interface BenchProcess {
  url: string;
  pid: number | undefined;
  rssMiB(): number;
  cpuSeconds(): number;
  stop(): Promise<void>;
}

/** Starts a process told its free port by `args` or `env`; ready once `url + readyPath` answers at all. */
export async function startProcess(
  command: string,
  args: (port: number) => string[],
  env: (port: number) => Record<string, string>,
  readyPath = '/',
): Promise<BenchProcess> {
  const port = await freePort();
  const child: ChildProcess = spawn(command, args(port), {
    env: { PATH: process.env.PATH ?? '', ...env(port) },
    stdio: ['ignore', process.stderr, process.stderr],
  });
  const url = `http://127.0.0.1:${port}`;
  for (let attempt = 0; ; attempt++) {
    if (child.exitCode !== null) throw new Error(`${command} exited with ${child.exitCode}`);
    if (
      await fetch(`${url}${readyPath}`).then(
        () => true,
        () => false,
      )
    )
      break;
    if (attempt > 150) throw new Error(`${command} did not answer in 15 s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    url,
    pid: child.pid,
    rssMiB: () => rssMiB(child.pid),
    cpuSeconds: () => cpuSeconds(child.pid),
    async stop() {
      child.kill('SIGTERM');
      if (child.exitCode === null) await new Promise((resolve) => child.once('exit', resolve));
    },
  };
}

export const node = (script: string) => () => ['--disable-warning=ExperimentalWarning', script];
export const portEnv =
  (extra: Record<string, string> = {}) =>
  (port: number) => ({ PORT: String(port), ...extra });
