import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { load } from './lib/load.ts';
import { scratchDirectory } from './lib/scratch.ts';
import { startServiceProcess } from './lib/service-process.ts';
import { basic, loadExchanges, prepare } from './token.ts';

// Where the service's CPU goes under one kind of load (issue 30: "profile first"). The service
// runs with --cpu-prof in a process of its own on SQLite; only the samples taken while the load
// ran are counted (the set-up mints thousands of tokens first), by the monotonic clock the
// profile and this process share. Prints self time per function and per module.
// --measure-only runs the same load without the profiler, for before/after figures of a change.

const LOADS = ['exchange', 'client_credentials'] as const;
const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    seconds: { type: 'string', default: '8' },
    top: { type: 'string', default: '30' },
    'measure-only': { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h' },
  },
});
const kind = (positionals[0] ?? 'exchange') as (typeof LOADS)[number];
if (values.help || !LOADS.includes(kind)) {
  process.stdout.write(`Usage: npm run bench:profile -- [${LOADS.join('|')}] [--seconds N] [--top N] [--measure-only]\n`);
  process.exit(values.help ? 0 : 2);
}
const seconds = Number(values.seconds);

const profiles = scratchDirectory('tessera-profile-');
const env = { TESSERA_DATABASE: `sqlite:${join(scratchDirectory('tessera-profile-db-'), 'bench.db')}` };
const profiling = !values['measure-only'];
if (profiling) process.env.BENCH_SERVICE_NODE_OPTIONS = `--cpu-prof --cpu-prof-dir=${profiles}`;
const service = await startServiceProcess({ ...env, TESSERA_ISSUER: 'http://tessera.bench.invalid', TESSERA_WORKERS: '1' });
let window: { from: bigint; to: bigint };
try {
  const setup = await prepare(service, env);
  const cpuBefore = service.cpuSeconds();
  const from = process.hrtime.bigint();
  const result =
    kind === 'exchange'
      ? await loadExchanges(setup, kind, seconds)
      : await load({
          name: kind,
          url: setup.tokenUrl,
          method: 'POST',
          seconds,
          headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic(setup.clientId, setup.clientSecret) },
          body: () => 'grant_type=client_credentials&scope=orders%3Aread',
        });
  window = { from, to: process.hrtime.bigint() };
  const cpuUs = ((service.cpuSeconds() - cpuBefore) * 1e6) / (result.rps * seconds);
  const note = profiling ? ' (profiling costs some)' : '';
  process.stdout.write(`${kind}: ${result.rps.toFixed(0)} req/s, ${cpuUs.toFixed(0)} µs CPU per request, RSS ${service.rssMiB().toFixed(0)} MiB${note}\n\n`);
} finally {
  await service.stop();
}

if (!profiling) process.exit(0);

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
const file = readdirSync(profiles).find((name) => name.endsWith('.cpuprofile'));
if (!file) throw new Error(`the service wrote no profile into ${profiles}`);
const profile = JSON.parse(readFileSync(join(profiles, file), 'utf8')) as {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
};
const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
const byFunction = new Map<string, number>();
const byModule = new Map<string, number>();
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
  total += delta;
}
const top = (counts: Map<string, number>) =>
  [...counts]
    .sort((a, b) => b[1] - a[1])
    .slice(0, Number(values.top))
    .map(([name, time]) => `${((100 * time) / total).toFixed(1).padStart(5)} %  ${name}`)
    .join('\n');
process.stdout.write(
  `Self time while the load ran (${(total / 1e6).toFixed(1)} s of samples; (idle) is the event loop waiting)\n\nby function:\n${top(byFunction)}\n\nby module:\n${top(byModule)}\n`,
);
