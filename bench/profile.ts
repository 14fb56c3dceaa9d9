import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { gatewayEnv, startGatewayProcess, tokenExchangePlugin } from './gateway.ts';
import { load } from './lib/load.ts';
import { residentParts } from './lib/ports.ts';
import { dropBenchDatabases, freshPostgresDatabase } from './lib/postgres.ts';
import { node, portEnv, startProcess } from './lib/process.ts';
import { scratchDirectory } from './lib/scratch.ts';
import { startServiceProcess } from './lib/service-process.ts';
import { basic, loadExchanges, prepare } from './token.ts';

// Where the CPU goes under one kind of load (issue 30: "profile first"): the service's for the
// token endpoint's loads, the gateway's for a cache hit (one subject) or misses (10,000 subjects),
// in front of the benchmarks' upstream. The profiled process runs with --cpu-prof, on SQLite;
// only the samples taken while the load ran are counted (the set-up mints thousands of tokens
// first), by the monotonic clock the profile and this process share. Prints self time per function and per module.
// --measure-only runs the same load without the profiler, for before/after figures of a change;
// --rate N offers N requests a second instead of as many as are answered; --postgres runs the
// service on a fresh database of BENCH_DATABASE_URL (or TEST_DATABASE_URL) instead of SQLite.

const LOADS = ['exchange', 'client_credentials', 'gateway-hit', 'gateway-miss', 'bare-proxy'] as const;
const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    seconds: { type: 'string', default: '8' },
    top: { type: 'string', default: '30' },
    'measure-only': { type: 'boolean', default: false },
    rate: { type: 'string' },
    postgres: { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h' },
  },
});
const kind = (positionals[0] ?? 'exchange') as (typeof LOADS)[number];
if (values.help || !LOADS.includes(kind)) {
  process.stdout.write(`Usage: npm run bench:profile -- [${LOADS.join('|')}] [--seconds N] [--top N] [--measure-only] [--rate N] [--postgres]\n`);
  process.exit(values.help ? 0 : 2);
}
const seconds = Number(values.seconds);
const gateway = kind.startsWith('gateway-') || kind === 'bare-proxy';
const rate = values.rate === undefined ? undefined : Number(values.rate);
if (rate !== undefined && !(rate > 0)) {
  process.stderr.write(`--rate takes requests a second above 0, not ${values.rate}\n`);
  process.exit(2);
}

const profiles = scratchDirectory('tessera-profile-');
const postgresUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
if (values.postgres && !postgresUrl) throw new TypeError('--postgres needs BENCH_DATABASE_URL or TEST_DATABASE_URL');
const env: Record<string, string> = values.postgres
  ? { DATABASE_URL: await freshPostgresDatabase(postgresUrl!) }
  : { TESSERA_DATABASE: `sqlite:${join(scratchDirectory('tessera-profile-db-'), 'bench.db')}` };
const profiling = !values['measure-only'];
// The process profiled: the service for the token endpoint's loads, the gateway (or the bare proxy) for its own.
const profileFlags = `--cpu-prof --cpu-prof-dir=${profiles}`;
if (profiling && kind !== 'bare-proxy') process.env[gateway ? 'BENCH_GATEWAY_NODE_OPTIONS' : 'BENCH_SERVICE_NODE_OPTIONS'] = profileFlags;
const peer = (file: string) => fileURLToPath(new URL(`./peers/${file}`, import.meta.url));
const upstream = gateway ? await startProcess(process.execPath, node(peer('upstream-server.ts')), portEnv()) : undefined;
const service = await startServiceProcess({ ...env, TESSERA_ISSUER: 'http://tessera.bench.invalid', TESSERA_WORKERS: '1' });
let window: { from: bigint; to: bigint };
let requests = 0;
try {
  const setup = await prepare(service, env);
  // The bare Node proxy of the gateway benchmark (a floor, bench/peers/bare-proxy.ts), profiled under the hit's load.
  const proxy =
    upstream &&
    (kind === 'bare-proxy'
      ? await startProcess(
          process.execPath,
          () => [...(profiling ? profileFlags.split(' ') : []), ...node(peer('bare-proxy.ts'))()],
          portEnv({ UPSTREAM: upstream.url }),
        )
      : await startGatewayProcess(gatewayEnv(upstream.url, tokenExchangePlugin(service.url, setup, kind === 'gateway-hit'))));
  const measured = proxy ?? service;
  const cpuBefore = measured.cpuSeconds();
  const from = process.hrtime.bigint();
  let next = 0;
  const result =
    kind === 'exchange'
      ? await loadExchanges(setup, kind, seconds, rate)
      : proxy
        ? await load({
            name: kind,
            url: `${proxy.url}/orders/1`,
            seconds,
            ...(rate === undefined ? {} : { rate }),
            ...(kind !== 'gateway-miss'
              ? { headers: { authorization: `Bearer ${setup.subjects[0]}` } }
              : { perRequestHeaders: () => ({ authorization: `Bearer ${setup.subjects[next++ % setup.subjects.length]}` }) }),
          })
        : await load({
            name: kind,
            url: setup.tokenUrl,
            method: 'POST',
            seconds,
            headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic(setup.clientId, setup.clientSecret) },
            body: () => 'grant_type=client_credentials&scope=orders%3Aread',
            ...(rate === undefined ? {} : { rate }),
          });
  window = { from, to: process.hrtime.bigint() };
  requests = result.requests;
  const cpuUs = ((measured.cpuSeconds() - cpuBefore) * 1e6) / result.requests;
  const note = profiling ? ' (profiling costs some)' : '';
  const parts = residentParts(measured.pid);
  process.stdout.write(
    `${kind}: ${result.rps.toFixed(0)} req/s, p50 ${result.p50} ms, p99 ${result.p99} ms, ${cpuUs.toFixed(0)} µs CPU per request, RSS ${measured.rssMiB().toFixed(0)} MiB (${gateway ? 'gateway' : 'service'}: ${parts.anonymous.toFixed(0)} anonymous, ${parts.file.toFixed(0)} file-backed)${note}\n\n`,
  );
  await proxy?.stop();
} finally {
  await service.stop();
  await upstream?.stop();
  await dropBenchDatabases();
}
if (!profiling) process.exit(0);

const IDLE = '(idle)';
/** Native frames of socket writes: the time is the kernel's, in the write system call. */
const SOCKET_IO = new Set(['writev', 'writeUtf8String', 'writeLatin1String', 'writeBuffer', 'writeAsciiString']);

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
const file = readdirSync(profiles).find((name) => name.endsWith('.cpuprofile'));
if (!file) throw new Error(`the profiled process wrote no profile into ${profiles}`);
const profile = JSON.parse(readFileSync(join(profiles, file), 'utf8')) as {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
};
const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
const byFunction = new Map<string, number>();
const byModule = new Map<string, number>();
const byCategory = new Map<string, number>();
let total = 0;
// Sample times are microseconds of the monotonic clock, as process.hrtime is (in nanoseconds).
let at = profile.startTime;
for (const [i, id] of profile.samples.entries()) {
  const delta = profile.timeDeltas[i] ?? 0;
  at += delta;
  if (BigInt(Math.round(at)) * 1000n < window!.from || BigInt(Math.round(at)) * 1000n > window!.to) continue;
  const { functionName, url, lineNumber } = nodes.get(id)!.callFrame;
  const where = url.replace(/^.*\/(node_modules|src)\//, '$1/');
  const name = `${functionName || '(anonymous)'} ${where}${where ? `:${lineNumber + 1}` : ''}`;
  const module = where.startsWith('node_modules/') ? where.split('/').slice(0, 2).join('/') : where.startsWith('src/') ? where : where || functionName;
  byFunction.set(name, (byFunction.get(name) ?? 0) + delta);
  byModule.set(module, (byModule.get(module) ?? 0) + delta);
  const kind = categoryOf(module);
  byCategory.set(kind, (byCategory.get(kind) ?? 0) + delta);
  total += delta;
}
const top = (counts: Map<string, number>) =>
  [...counts]
    .sort((a, b) => b[1] - a[1])
    .slice(0, Number(values.top))
    .map(([name, time]) => `${((100 * time) / total).toFixed(1).padStart(5)} %  ${name}`)
    .join('\n');
// The main thread's time per request by kind of work: what an exchange spends beside a
// client_credentials request, category by category (GC helper threads are not in a profile).
const perRequest = [...byCategory]
  .filter(([name]) => name !== IDLE)
  .sort((a, b) => b[1] - a[1])
  .map(([name, time]) => `| ${name} | ${(time / requests).toFixed(0)} |`);
const busy = total - (byCategory.get(IDLE) ?? 0);
process.stdout.write(
  [
    `Self time while the load ran (${(total / 1e6).toFixed(1)} s of samples; (idle) is the event loop waiting)`,
    `by function:\n${top(byFunction)}`,
    `by module:\n${top(byModule)}`,
    `by kind of work, main-thread µs per request (${requests.toFixed(0)} requests):\n\n| kind | µs |\n|---|---:|\n${perRequest.join('\n')}\n| all but idle | ${(busy / requests).toFixed(0)} |\n`,
  ].join('\n\n'),
);

/** A module's kind of work, for the per-request table. */
function categoryOf(module: string): string {
  if (module === '(idle)') return IDLE;
  if (module === 'node:internal/crypto/sig') return 'signatures (node:crypto sign, verify)';
  if (module.startsWith('src/store/sqlite/')) return 'SQLite statements and commits';
  if (module === '(garbage collector)') return 'garbage collection';
  if (SOCKET_IO.has(module)) return 'socket system calls (writes)';
  if (
    /^(node:_http|node:net|node:internal\/(streams|stream_base_commons|http))|^node_modules\/(undici|fastify|find-my-way|avvio|fast-querystring|@fastify)/.test(
      module,
    )
  )
    return 'HTTP: node:http, undici, fastify';
  if (module.startsWith('src/')) return "Tessera's own code (src/)";
  return 'other: V8, Node internals, other libraries';
}
