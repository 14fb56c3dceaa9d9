import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The launcher users run (`npm run tessera`, `npm start`), so its flags are under test too. */
const launcher = fileURLToPath(new URL('../../bin/tessera', import.meta.url));

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `bin/tessera <args>` in its own process. */
export function runCli(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawnCli(args, env);
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (chunk) => (stdout += chunk));
    child.stderr!.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** `detached`: a process group of its own, so a test can signal the group as systemd or a terminal does. */
export function spawnCli(args: string[], env: Record<string, string> = {}, { detached = false } = {}): ChildProcess {
  return spawn(launcher, args, {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached,
  });
}

/** Resolves with everything printed once `marker` appears on stdout (rejects on exit or timeout). */
export function waitForOutput(child: ChildProcess, marker: string, timeoutMs = 15_000): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    const timer = setTimeout(() => reject(new Error(`no "${marker}" within ${timeoutMs} ms; stdout:\n${out}\nstderr:\n${err}`)), timeoutMs);
    child.stderr!.on('data', (chunk) => (err += chunk));
    child.stdout!.on('data', (chunk) => {
      out += chunk;
      if (out.includes(marker)) {
        clearTimeout(timer);
        resolve(out);
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code} before "${marker}"; stdout:\n${out}\nstderr:\n${err}`));
    });
  });
}

export function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => (child.exitCode !== null ? resolve(child.exitCode) : child.once('exit', (code) => resolve(code))));
}
