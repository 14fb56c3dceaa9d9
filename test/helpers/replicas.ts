import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { testDatabaseUrl } from './backends.ts';
import { runCli, spawnCli } from './cli.ts';
import { type ClientCredentials, JWT_TYPE } from './oauth.ts';
import { callService, TEST_SECRET, type TestOrg, type TestService } from './service.ts';

/**
 * Real service and gateway processes, started through the launcher (`bin/tessera`) as an
 * operator starts them, over one PostgreSQL database of their own: what replicas behind a load
 * balancer are. Reusable by any suite that needs processes rather than an in-process service
 * (replica consistency, soak runs with faults).
 */

/** Every replica's TESSERA_ISSUER: replicas behind one address must share it (docs/configuration.md). */
export const REPLICA_ISSUER = 'http://tessera-replicas.test';

/**
 * The PostgreSQL server of the suite, or undefined when TEST_DATABASE_URL is unset (the suite
 * is then not registered); under CI a missing TEST_DATABASE_URL throws (backends.ts).
 */
export function postgresServerUrl(): string | undefined {
  return testDatabaseUrl('replica suites');
}

export interface FreshDatabase {
  name: string;
  url: string;
  /** Drops the database, closing whatever connections are left. */
  drop(): Promise<void>;
}

/** A new, empty database on the server of `serverUrl`: processes share it and migrate it themselves. */
export async function freshDatabase(serverUrl: string): Promise<FreshDatabase> {
  const name = `r_${randomBytes(6).toString('hex')}`;
  await onServer(serverUrl, `CREATE DATABASE ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return { name, url: url.toString(), drop: () => onServer(serverUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

async function onServer(serverUrl: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/** How a process ended: its exit code, or the signal that ended it. */
export interface ExitStatus {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** A process of ours: its pid, its output so far, and how to stop it. */
export interface ManagedProcess {
  readonly pid: number;
  /** Settles when the current process has ended. */
  readonly exited: Promise<ExitStatus>;
  /** What it printed (stdout and stderr, interleaved), the last OUTPUT_KEPT characters. */
  output(): string;
  /** Sends `signal` (default SIGTERM) unless it has ended, and waits for the end. */
  kill(signal?: NodeJS.Signals): Promise<ExitStatus>;
}

/** Output kept per process: enough to explain a failure, bounded for long soak runs. */
const OUTPUT_KEPT = 1 << 20;
const STARTUP_TIMEOUT_MS = 20_000;

class Launched implements ManagedProcess {
  readonly #child: ChildProcess;
  readonly exited: Promise<ExitStatus>;
  #output = '';

  constructor(args: string[], env: Record<string, string>) {
    this.#child = spawnCli(args, env);
    const keep = (chunk: Buffer) => {
      this.#output += chunk.toString('utf8');
      if (this.#output.length > OUTPUT_KEPT) this.#output = this.#output.slice(-OUTPUT_KEPT);
    };
    this.#child.stdout!.on('data', keep);
    this.#child.stderr!.on('data', keep);
    this.exited = new Promise((resolve) => this.#child.once('exit', (code, signal) => resolve({ code, signal })));
  }

  get pid(): number {
    return this.#child.pid!;
  }

  output(): string {
    return this.#output;
  }

  async kill(signal: NodeJS.Signals = 'SIGTERM'): Promise<ExitStatus> {
    if (this.#child.exitCode === null && this.#child.signalCode === null) this.#child.kill(signal);
    return this.exited;
  }

  /** The first match of `pattern` in the output, once it appears; rejects if the process ends first. */
  async waitFor(pattern: RegExp, what: string): Promise<RegExpExecArray> {
    const deadline = Date.now() + STARTUP_TIMEOUT_MS;
    let ended = false;
    void this.exited.then(() => (ended = true));
    for (;;) {
      const match = pattern.exec(this.#output);
      if (match) return match;
      if (ended || Date.now() > deadline) {
        await this.kill('SIGKILL');
        throw new Error(`${what}: ${ended ? 'ended' : `not started within ${STARTUP_TIMEOUT_MS} ms`}; output:\n${this.#output}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }
}

/** How a process is told its database: a `sqlite:PATH` file through TESSERA_DATABASE, PostgreSQL through DATABASE_URL. */
const databaseVariables = (url: string): Record<string, string> => (url.startsWith('sqlite:') ? { TESSERA_DATABASE: url } : { DATABASE_URL: url });

export interface ReplicaOptions {
  /** PostgreSQL (what replicas share), or a `sqlite:PATH` file for one process. */
  databaseUrl: string;
  /** Variables over the defaults (TESSERA_SECRET, REPLICA_ISSUER, a pool of 5, log level info). */
  env?: Record<string, string>;
}

export interface Replica extends ManagedProcess {
  /** http://127.0.0.1:<port>; the same after a restart. */
  readonly url: string;
  /** The replica as the test helpers drive a service (`call`, `url`); `org()` makes an organisation with the CLI. */
  readonly t: TestService;
  /** Stops the process if it runs (SIGTERM), then starts another on the same port and database. */
  restart(): Promise<void>;
}

/** `tessera service` on a port of its own over `databaseUrl`, once it has logged that it started. */
export async function startReplica({ databaseUrl, env = {} }: ReplicaOptions): Promise<Replica> {
  const settings: Record<string, string> = {
    ...databaseVariables(databaseUrl),
    TESSERA_SECRET: TEST_SECRET,
    TESSERA_ISSUER: REPLICA_ISSUER,
    TESSERA_DATABASE_POOL_SIZE: '5',
    TESSERA_LOG_LEVEL: 'info',
    TESSERA_PORT: '0',
    ...env,
  };
  const launch = async () => {
    const launched = new Launched(['service'], settings);
    const [, url] = await launched.waitFor(/"url":"(http:\/\/[^"]+)"[^\n]*"msg":"tessera service started"/, 'tessera service');
    return { process: launched, url: url! };
  };
  let current = await launch();
  const url = current.url;
  // A restart keeps the port, as an orchestrator restarting a replica behind a balancer would.
  settings.TESSERA_PORT = new URL(url).port;
  return {
    url,
    t: serviceAt(url, () => createOrg(databaseUrl)),
    get pid() {
      return current.process.pid;
    },
    get exited() {
      return current.process.exited;
    },
    output: () => current.process.output(),
    kill: (signal) => current.process.kill(signal),
    async restart() {
      await current.process.kill('SIGTERM');
      current = await launch();
    },
  };
}

/**
 * Starts `count` replicas over one database together, as a deployment does (they race on
 * migrations). If one fails to start, the others are stopped before the failure is thrown.
 */
export function startReplicas(count: number, options: ReplicaOptions): Promise<Replica[]> {
  return startAll(Array.from({ length: count }, () => startReplica(options)));
}

/** Every process started, or none left running: the started ones are killed when any fails. */
export async function startAll<T extends ManagedProcess>(starting: Promise<T>[]): Promise<T[]> {
  const settled = await Promise.allSettled(starting);
  const failure = settled.find((result) => result.status === 'rejected');
  if (!failure) return settled.map((result) => (result as PromiseFulfilledResult<T>).value);
  await Promise.all(settled.map((result) => (result.status === 'fulfilled' ? result.value.kill('SIGKILL') : undefined)));
  throw failure.reason;
}

/** `tessera admin create-org` against the database: how an operator makes the first organisation. */
export async function createOrg(databaseUrl: string, name = `org-${randomBytes(6).toString('hex')}`): Promise<TestOrg> {
  const result = await runCli(['admin', 'create-org', '--name', name, '--json'], { ...databaseVariables(databaseUrl), TESSERA_SECRET: TEST_SECRET });
  if (result.code !== 0) throw new Error(`tessera admin create-org failed (${result.code}): ${result.stderr}`);
  const { org_id: orgId, api_key: apiKey } = JSON.parse(result.stdout) as { org_id: string; api_key: string };
  return { orgId, apiKey, headers: { 'service-orgid': orgId, 'service-api-key': apiKey } };
}

/** A TestService over HTTP only: what the test helpers need of a service (`url`, `call`) for a process of ours. */
export function serviceAt(url: string, org: () => Promise<TestOrg>): TestService {
  return {
    get service(): never {
      throw new Error('a replica runs in a process of its own: there is no in-process service to reach into');
    },
    url,
    org,
    call: (method, path, options) => callService(url, method, path, options),
    close: async () => {},
  };
}

export interface GatewayOptions {
  /** The service the token-exchange plugin asks: `<serviceUrl>/oauth2/tokens`. */
  serviceUrl: string;
  /** The gateway's own OAuth client (actor_mode oauth_client). */
  client: ClientCredentials;
  /** Where every request goes (GATEWAY_DEFAULT_TARGET). */
  upstreamUrl: string;
  /** The delegated token's type (default the JWT type). */
  requestedTokenType?: string;
  /** More GATEWAY_* variables, over these. */
  env?: Record<string, string>;
}

export interface GatewayProcess extends ManagedProcess {
  /** The proxy. */
  url: string;
  /** /healthz, /readyz, /metrics. */
  adminUrl: string;
}

/**
 * `tessera gateway`, configured by environment variables as docs/gateway.md shows: one
 * token-exchange plugin taking the subject from Authorization, acting as `client`.
 */
export async function startGatewayProcess({
  serviceUrl,
  client,
  upstreamUrl,
  requestedTokenType = JWT_TYPE,
  env = {},
}: GatewayOptions): Promise<GatewayProcess> {
  const launched = new Launched(['gateway'], {
    GATEWAY_PORT: '0',
    GATEWAY_ADMIN_PORT: '0',
    GATEWAY_LOG_LEVEL: 'info',
    GATEWAY_DEFAULT_TARGET: upstreamUrl,
    GATEWAY_PLUGINS_0_TYPE: 'token-exchange',
    GATEWAY_PLUGINS_0_PARAMETERS_SERVICE_BASE_URL: serviceUrl,
    GATEWAY_PLUGINS_0_PARAMETERS_SUBJECT_HEADER_WITH_TOKEN: 'Authorization',
    GATEWAY_PLUGINS_0_PARAMETERS_ACTOR_MODE: 'oauth_client',
    GATEWAY_PLUGINS_0_PARAMETERS_OAUTH_CLIENT_ID: client.id,
    GATEWAY_PLUGINS_0_PARAMETERS_OAUTH_CLIENT_SECRET: client.secret,
    GATEWAY_PLUGINS_0_PARAMETERS_REQUESTED_TOKEN_TYPE: requestedTokenType,
    ...env,
  });
  const [, url, adminUrl] = await launched.waitFor(
    /"url":"(http:\/\/[^"]+)","admin":"(http:\/\/[^"]+)"[^\n]*"msg":"tessera gateway started"/,
    'tessera gateway',
  );
  return {
    url: url!,
    adminUrl: adminUrl!,
    get pid() {
      return launched.pid;
    },
    exited: launched.exited,
    output: () => launched.output(),
    kill: (signal) => launched.kill(signal),
  };
}
