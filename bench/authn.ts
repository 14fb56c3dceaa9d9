import { argon2, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { runCliJson } from './lib/cli.ts';
import { boundGoal, goalsTable, ratioGoal } from './lib/goals.ts';
import { type LoadResult, load, table } from './lib/load.ts';
import { type ServiceProcess, startServiceProcess } from './lib/service-process.ts';
import { basic } from './token.ts';

const PERSONS = 200;
const PASSWORD = 'correct horse battery staple';
/** OWASP's argon2id minimum, the service's default rehash policy. */
const OWASP = { memory: 19_456, passes: 2, parallelism: 1 };
/** Keycloak's published sizing: 15 password logins per second per vCPU. */
const KEYCLOAK_LOGINS_PER_VCPU = 15;
const CONCURRENT_LOGINS = 20;
/** Within the hash pool's capacity on two cores (2 running + 16 queued): no login is shed with a 503. */
const THROUGHPUT_LOGINS = 16;
const FORM = 'application/x-www-form-urlencoded';
/** Addresses the logins come from, round robin, so that no address has more than one login in flight (TESSERA_LOGINS_PER_SOURCE is 4). */
const SOURCES = 250;
/** The flooder's one address, outside the others' range. */
const FLOODER = '198.51.100.250';

/**
 * The service sits behind a "load balancer" at loopback, so X-Forwarded-For names the client:
 * the load generator's connections all come from 127.0.0.1, and without this every login
 * counted against one address's TESSERA_LOGINS_PER_SOURCE and was answered 429.
 */
let nextSource = 0;
const manySources = () => ({ 'x-forwarded-for': `203.0.113.${nextSource++ % SOURCES}` });

type Row = LoadResult & { rssMiB: number; cpu: number; cpuUs?: number };

const argon2Async = promisify(argon2);
const phc = (bytes: Buffer) => bytes.toString('base64').replace(/=+$/, '');

/** One argon2id PHC string at OWASP's parameters, made here with Node's own argon2. */
async function owaspHash(password: string): Promise<string> {
  const nonce = randomBytes(16);
  const tag = await argon2Async('argon2id', { message: password, nonce, tagLength: 32, ...OWASP });
  return `$argon2id$v=19$m=${OWASP.memory},t=${OWASP.passes},p=${OWASP.parallelism}$${phc(nonce)}$${phc(Buffer.from(tag))}`;
}

/**
 * Password logins with argon2id at OWASP's parameters, beside Keycloak's published sizing, and
 * the token endpoint's p99 alone and while 20 logins run at once: hashing must run off the
 * event loop, so the token endpoint keeps answering.
 */
export async function authnBenchmark(options: { seconds: number }): Promise<string> {
  const directory = mkdtempSync(join(tmpdir(), 'tessera-bench-authn-'));
  const env = { TESSERA_DATABASE: `sqlite:${join(directory, 'bench.db')}`, TESSERA_TRUSTED_PROXIES: '127.0.0.1,::1' };
  const service = await startServiceProcess(env);
  try {
    const setup = await prepare(service, env);
    const rows: Row[] = [];
    const measured = async (run: () => Promise<LoadResult>): Promise<Row> => {
      const before = service.cpuSeconds();
      const started = performance.now();
      const result = await run();
      const used = service.cpuSeconds() - before;
      const cpu = used / ((performance.now() - started) / 1000);
      return { ...result, rssMiB: service.rssMiB(), cpu, cpuUs: (used * 1e6) / Math.max(result.requests, 1) };
    };
    const tokens = (name: string) => () =>
      load({
        name,
        url: setup.tokenUrl,
        method: 'POST',
        seconds: options.seconds,
        connections: 10,
        headers: setup.tokenHeaders,
        body: () => 'grant_type=client_credentials',
      });
    const logins = (name: string, connections: number) => () =>
      load({
        name,
        url: setup.loginUrl,
        method: 'POST',
        seconds: options.seconds,
        connections,
        headers: setup.loginHeaders,
        perRequestHeaders: manySources,
        body: setup.nextLogin,
      });

    const idle = await measured(tokens('token endpoint alone: client_credentials, 10 connections'));
    rows.push(idle);
    const alone = await measured(logins(`password logins alone, argon2id m=19 MiB t=2 p=1, ${THROUGHPUT_LOGINS} connections`, THROUGHPUT_LOGINS));
    rows.push(alone);
    const [busy, beside] = await Promise.all([
      measured(tokens(`token endpoint while ${CONCURRENT_LOGINS} logins run`)),
      load({
        name: `password logins beside it`,
        url: setup.loginUrl,
        method: 'POST',
        seconds: options.seconds,
        connections: CONCURRENT_LOGINS,
        headers: setup.loginHeaders,
        perRequestHeaders: manySources,
        body: setup.nextLogin,
      }),
    ]);
    rows.push(busy, { ...beside, rssMiB: service.rssMiB(), cpu: Number.NaN });
    const [others, flood] = await Promise.all([
      measured(logins(`password logins from many addresses while one address floods`, THROUGHPUT_LOGINS)),
      load({
        name: `the flooder: wrong passwords for made-up handles from one address, ${THROUGHPUT_LOGINS} connections`,
        url: setup.loginUrl,
        method: 'POST',
        seconds: options.seconds,
        connections: THROUGHPUT_LOGINS,
        headers: { ...setup.loginHeaders, 'x-forwarded-for': FLOODER },
        body: setup.nextGuess,
      }),
    ]);
    rows.push(others, { ...flood, rssMiB: service.rssMiB(), cpu: Number.NaN });

    const cores = availableParallelism();
    // Only answered logins count: a 503 (pool full) or 429 is no login.
    const succeeded = (r: LoadResult) => (r.requests - r.non2xx - r.errors) / options.seconds;
    const perCore = succeeded(alone) / cores;
    const loginTarget = KEYCLOAK_LOGINS_PER_VCPU * 1.5;
    const cpuTable = rows.map((r) => `| ${r.name} | ${Number.isNaN(r.cpu) ? '(same process as the row above)' : `${Math.round(r.cpu * 100)} %`} |`);
    return [
      table(rows),
      '',
      '| CPU of the service, % of one core | |',
      '|---|---:|',
      ...cpuTable,
      '',
      `- successful password logins: ${succeeded(alone).toFixed(0)}/s on ${cores} cores; Keycloak's sizing: ${KEYCLOAK_LOGINS_PER_VCPU} per vCPU`,
      `- answers of the login rows by status: alone ${JSON.stringify(alone.statuses)}, beside ${JSON.stringify(beside.statuses)}, beside the flooder ${JSON.stringify(others.statuses)}`,
      `- beside the token endpoint, ${CONCURRENT_LOGINS} login connections: ${succeeded(beside).toFixed(0)} logins/s answered, ${beside.non2xx} answers not 2xx (the pool's 503 with Retry-After, retried at once by the load generator)`,
      `- while one address floods (${THROUGHPUT_LOGINS} connections of wrong passwords for made-up handles): the others' ${succeeded(others).toFixed(0)} logins/s (p50 ${others.p50} ms, p99 ${others.p99} ms) vs ${succeeded(alone).toFixed(0)}/s alone; the flooder's answers ${JSON.stringify(flood.statuses)} (429: TESSERA_LOGINS_PER_SOURCE; 401: each held its place for the failure time)`,
      '',
      "Issue 30's goals:",
      '',
      goalsTable([
        boundGoal('7. successful password logins per core (argon2id m=19 MiB t=2), from many addresses', perCore, 'per core', 'at least', loginTarget),
        ratioGoal(`8. token endpoint p99 while ${CONCURRENT_LOGINS} logins run / alone`, busy.p99, Math.max(idle.p99, 1), 'below', 2),
      ]),
    ].join('\n');
  } finally {
    await service.stop();
    rmSync(directory, { recursive: true, force: true });
  }
}

interface Setup {
  tokenUrl: string;
  tokenHeaders: Record<string, string>;
  loginUrl: string;
  loginHeaders: Record<string, string>;
  nextLogin: () => string;
  /** A wrong password for a handle nobody has, a new one each time (no attempt counter delays it). */
  nextGuess: () => string;
}

/** An organisation, a client, and 200 persons holding the same OWASP argon2id password hash. */
async function prepare(service: ServiceProcess, env: Record<string, string>): Promise<Setup> {
  const { org_id, api_key } = await runCliJson(['admin', 'create-org', '--name', 'bench-authn', '--json'], env);
  const headers = { 'service-orgid': org_id, 'service-api-key': api_key, 'content-type': 'application/json' };
  const api = async (path: string, body: unknown) => {
    const response = await fetch(`${service.url}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
    if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
    return ((await response.json()) as { result: Record<string, string> }).result;
  };
  const client = await api('/oauth2/clients', { client_name: 'bench', grant_types: ['client_credentials'], scopes: ['orders:read'] });
  const hash = await owaspHash(PASSWORD);
  const emails: string[] = [];
  for (let i = 0; i < PERSONS; i++) {
    const email = `p${i}@bench.example`;
    const person = await api('/persons', { handles: [{ type: 'email_address', value: email }] });
    await api(`/persons/${person.id}/credentials`, { type: 'password', params: { password_hash: hash } });
    emails.push(email);
  }
  let next = 0;
  let guesses = 0;
  return {
    tokenUrl: `${service.url}/oauth2/tokens`,
    tokenHeaders: { 'content-type': FORM, authorization: basic(client.client_id!, client.client_secret!) },
    loginUrl: `${service.url}/authn/password`,
    loginHeaders: { 'content-type': 'application/json', 'service-orgid': org_id },
    // Each login names the next person, so no one person's attempt counter is the bottleneck.
    nextLogin: () => JSON.stringify({ handle: { type: 'email_address', value: emails[next++ % emails.length] }, password: PASSWORD }),
    nextGuess: () => JSON.stringify({ handle: { type: 'email_address', value: `nobody${guesses++}@bench.example` }, password: 'guess' }),
  };
}
