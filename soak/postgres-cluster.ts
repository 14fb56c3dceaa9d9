import { execFile } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * A PostgreSQL server of the soak's own, in a temporary directory: restarting it is a real
 * restart of a real server, and no other test sharing the machine's server is disturbed.
 * PostgreSQL refuses to run as root, so as root it runs as the `postgres` user.
 */
export interface PostgresCluster {
  /** postgres://postgres@127.0.0.1:<port>/postgres */
  url: string;
  /** `pg_ctl restart -m immediate`: every connection is cut and the server recovers from its WAL, as after a crash. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

/** The server binaries: PG_BINDIR, else the newest Debian-packaged version. */
export function postgresBinaries(): string | undefined {
  if (process.env.PG_BINDIR) return process.env.PG_BINDIR;
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] ? join(root, versions[0], 'bin') : undefined;
}

export async function startPostgresCluster(port: number): Promise<PostgresCluster> {
  const bin = postgresBinaries();
  if (!bin) throw new Error('the soak needs PostgreSQL server binaries (apt-get install postgresql, or set PG_BINDIR)');
  const directory = mkdtempSync(join(tmpdir(), 'tessera-soak-pg-'));
  chmodSync(directory, 0o777);
  const data = join(directory, 'data');
  const asOwner = (command: string, args: string[]) =>
    process.getuid?.() === 0 ? run('runuser', ['-u', 'postgres', '--', join(bin, command), ...args]) : run(join(bin, command), args);
  const options = `-p ${port} -k ${directory} -c listen_addresses=127.0.0.1 -c max_connections=200`;
  const pgCtl = (...args: string[]) => asOwner('pg_ctl', ['-D', data, '-l', join(directory, 'log'), '-o', options, '-w', ...args]);
  await asOwner('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync']);
  await pgCtl('start');
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    restart: async () => void (await pgCtl('-m', 'immediate', 'restart')),
    async stop() {
      await pgCtl('-m', 'immediate', 'stop').catch(() => {});
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
