import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { dataDirectory, sqliteFile } from '../config/data-dir.ts';
import { loadServiceConfig } from '../config/service-config.ts';
import { describe } from '../store/open-store.ts';
import type { DemoConsole } from './demo-console.ts';
import type { DemoVerification } from './demo-verification.ts';

/**
 * What one demo start leaves for the next: the credentials it printed (so the next start
 * reuses them instead of rotating them under a demo that still runs) and, while it runs,
 * where it runs. It holds secrets, so it is written with mode 0600 and never logged.
 */
export interface DemoState {
  orgId: string;
  adminKey: string;
  /** ada's id, for `tessera demo token` (absent in the state of an older demo). */
  personId?: string;
  client?: { id: string; secret: string };
  /** The email verification's connection, its SCIM token and the integration key. */
  verification?: DemoVerification;
  /** ada's console password. */
  console?: DemoConsole;
  running?: { pid: number; serviceUrl: string; gatewayUrl: string };
}

/**
 * The demo's configuration, read alike by `npm start` and `tessera demo token` so that both
 * find one database and one kept state: the service's variables over the demo's defaults.
 */
export function demoSettings(env: Record<string, string | undefined>) {
  // An empty variable counts as unset, so it must not erase the demo's defaults either.
  const given = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== ''));
  const { config, warnings } = loadServiceConfig({ TESSERA_DEV: '1', TESSERA_LOG_LEVEL: 'warn', ...given });
  return { given, config, warnings, statePath: demoStatePath(config.databaseUrl, given) };
}

/**
 * Beside the SQLite file (as its -wal and -shm files are); for PostgreSQL, in the data
 * directory under a name of that database; none for a database in memory, which no later
 * start can see.
 */
export function demoStatePath(databaseUrl: string, env: Record<string, string | undefined>): string | undefined {
  if (databaseUrl === 'sqlite::memory:') return undefined;
  const file = sqliteFile(databaseUrl);
  if (file !== undefined) return `${file}.demo.json`;
  const name = createHash('sha256').update(describe(databaseUrl)).digest('hex').slice(0, 12);
  return join(dataDirectory(env), `demo-${name}.json`);
}

export function readDemoState(path: string | undefined): DemoState | undefined {
  if (path === undefined) return undefined;
  try {
    const state = JSON.parse(readFileSync(path, 'utf8')) as DemoState;
    if (typeof state.orgId !== 'string' || typeof state.adminKey !== 'string') return undefined;
    // A part that is not whole is as good as none: the demo makes that part anew.
    if (!isWhole(state.verification)) delete state.verification;
    if (typeof state.console?.password !== 'string') delete state.console;
    return state;
  } catch {
    return undefined; // none yet, or unreadable: the demo then issues new credentials
  }
}

function isWhole(part: unknown): part is DemoVerification {
  const fields = part as Partial<Record<keyof DemoVerification, unknown>> | null;
  return typeof fields === 'object' && fields !== null && [fields.connectionId, fields.scimToken, fields.integrationKey].every((f) => typeof f === 'string');
}

/** Written whole to a 0600 file beside it, then renamed over the old one: never half a file. */
export function writeDemoState(path: string | undefined, state: DemoState): void {
  if (path === undefined) return;
  mkdirSync(dirname(path), { recursive: true });
  const next = `${path}.${process.pid}.tmp`;
  writeFileSync(next, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
  chmodSync(next, 0o600); // the mode of writeFileSync is masked by the umask
  renameSync(next, path);
}

/**
 * The demo recorded as running, if it still is: its process exists and its service answers
 * (a process id alone could have been reused since a crash).
 */
export async function runningDemo(state: DemoState | undefined): Promise<DemoState['running']> {
  const running = state?.running;
  if (!running || running.pid === process.pid) return undefined;
  try {
    process.kill(running.pid, 0);
  } catch (error) {
    // EPERM: the process exists, under another user; whether it is a demo, its service says.
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return undefined;
  }
  try {
    const answer = await fetch(`${running.serviceUrl}/healthz`, { signal: AbortSignal.timeout(2_000) });
    return answer.ok ? running : undefined;
  } catch {
    return undefined;
  }
}
