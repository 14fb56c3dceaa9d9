import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exited, spawnCli, waitForOutput } from '../helpers/cli.ts';
import type { PortMap } from './doc-blocks.ts';

/** A fresh `npm start` of a doc's own, over a data directory of its own that is removed at the end. */
export interface DocsDemo {
  /** Where the demo keeps its data; also the readers' HOME and TMPDIR. */
  dir: string;
  /** The environment a reader's second shell has: the same data directory as the demo. */
  env: Record<string, string>;
  /** The docs' literal ports and the ports of this demo (or free ones) standing for them. */
  ports: PortMap;
  /** The values the docs mark `# printed by npm start`. */
  printed: Record<string, string>;
  close(): Promise<void>;
}

/**
 * A port that was free a moment ago, for the examples' own servers (bundle server, second
 * gateway), which start seconds later. Drawn below the kernel's ephemeral range (32768 and up on
 * Linux), where every port-0 listener of the other test files lands, so none of them can take
 * it in between (regression: a docs gateway found its port taken by another file's server).
 */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    const server = createServer();
    const bound = await new Promise<boolean>((resolve) => {
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => resolve(true));
    });
    if (bound) {
      await new Promise((resolve) => server.close(resolve));
      return port;
    }
  }
}

const portOf = (url: string): number => Number(new URL(url).port);

export async function startDocsDemo(): Promise<DocsDemo> {
  const dir = mkdtempSync(join(tmpdir(), 'tessera-docs-'));
  const env = { TESSERA_DATA_DIR: dir, HOME: dir, TMPDIR: dir };
  const demo = spawnCli(['demo'], { ...env, TESSERA_PORT: '0', GATEWAY_PORT: '0', GATEWAY_ADMIN_PORT: '0' });
  const close = async () => {
    if (demo.exitCode === null) {
      demo.kill('SIGTERM');
      await exited(demo);
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const banner = await waitForOutput(demo, 'Press Ctrl+C', 30_000);
    const field = (pattern: RegExp, what: string): string => {
      const match = pattern.exec(banner);
      if (!match) throw new Error(`the demo's banner shows no ${what}:\n${banner}`);
      return match[1]!;
    };
    const service = field(/ service +(http:\/\/\S+)/, 'service URL');
    const gateway = field(/ gateway +(http:\/\/\S+)/, 'gateway URL');
    const admin = field(/\(admin: (http:\/\/[\d.:]+)\//, 'gateway admin URL');
    const echo = field(/echo upstream (http:\/\/\S+)/, 'echo upstream');
    return {
      dir,
      env,
      ports: {
        8080: portOf(service),
        8000: portOf(gateway),
        8001: portOf(admin),
        // The docs' upstream: the demo's echo, which shows what the gateway forwarded.
        9000: portOf(echo),
        // The examples' own servers: the SVID bundle server and a second gateway.
        8081: await freePort(),
        8010: await freePort(),
        8011: await freePort(),
      },
      printed: { ORG: field(/organisation +"demo" (org_\w+)/, 'organisation id'), KEY: field(/admin key +(tsk_\S+)/, 'admin key') },
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
