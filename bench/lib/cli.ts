import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';

const cli = fileURLToPath(new URL('../../src/cli.ts', import.meta.url));

/** Runs a `tessera … --json` command and parses what it prints. */
export async function runCliJson(args: string[], env: Record<string, string>): Promise<any> {
  const { stdout } = await promisify(execFile)(process.execPath, ['--disable-warning=ExperimentalWarning', cli, ...args], {
    env: { PATH: process.env.PATH ?? '', ...env },
  });
  return JSON.parse(stdout);
}
