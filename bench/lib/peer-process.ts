import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { freePort, rssMiB } from './ports.ts';

const oidcProviderServer = fileURLToPath(new URL('../peers/oidc-provider-server.ts', import.meta.url));

export interface PeerProcess {
  url: string;
  /** `POST` here, form-encoded, with HTTP Basic client authentication. */
  tokenUrl: string;
  /** Resident set size of the peer process, in MiB, read from /proc. */
  rssMiB(): number;
  stop(): Promise<void>;
}

/** node-oidc-provider v9 (client_credentials, in-memory adapter) in a process of its own. */
export async function startOidcProviderPeer(): Promise<PeerProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--disable-warning=ExperimentalWarning', oidcProviderServer], {
    env: { PATH: process.env.PATH ?? '', PORT: String(port) },
    // stdout carries the `listening` line; the peer's diagnostics go to stderr, so that stdout stays the report.
    stdio: ['ignore', 'pipe', process.stderr],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  let url: string;
  try {
    url = await new Promise<string>((resolve, reject) => {
      let buffered = '';
      const timer = setTimeout(() => reject(new Error('the oidc-provider peer did not print `listening` in 15 s')), 15_000);
      const onExit = (code: number | null, signal: string | null) => {
        clearTimeout(timer);
        reject(new Error(`the oidc-provider peer exited with ${code ?? signal} before listening`));
      };
      child.once('exit', onExit);
      child.stdout!.setEncoding('utf8');
      child.stdout!.on('data', function onData(chunk: string) {
        buffered += chunk;
        const match = /^listening (\S+)$/m.exec(buffered);
        if (!match) return;
        clearTimeout(timer);
        child.off('exit', onExit);
        child.stdout!.off('data', onData);
        // Keep draining stdout so that a chatty peer never blocks on a full pipe.
        child.stdout!.resume();
        resolve(match[1]!);
      });
    });
  } catch (error) {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await exited;
    }
    throw error;
  }

  return {
    url,
    tokenUrl: `${url}/token`,
    rssMiB: () => rssMiB(child.pid),
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
