import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

/** The launcher users run (`npm run tessera`), so its Node flags are part of what is measured. */
export const launcher = fileURLToPath(new URL('../../bin/tessera', import.meta.url));

/** Runs a `tessera … --json` command and parses what it prints. */
export async function runCliJson(args: string[], env: Record<string, string>): Promise<any> {
  const { stdout } = await promisify(execFile)(launcher, args, { env: { PATH: process.env.PATH ?? '', ...env } });
  return JSON.parse(stdout);
}
