import { cpus, totalmem } from 'node:os';
import { parseArgs } from 'node:util';
import { apiBenchmark } from './api.ts';
import { authnBenchmark } from './authn.ts';
import { consoleBenchmark } from './console.ts';
import { gatewayBenchmark } from './gateway.ts';
import { dropBenchDatabases } from './lib/postgres.ts';
import { scaleBenchmark } from './scale.ts';
import { tokenBenchmark } from './token.ts';
import { verificationBenchmark } from './verification.ts';

const benchmarks: Record<string, (options: { seconds: number; postgresUrl?: string }) => Promise<string>> = {
  api: apiBenchmark,
  authn: authnBenchmark,
  token: tokenBenchmark,
  gateway: gatewayBenchmark,
  verification: verificationBenchmark,
  scale: scaleBenchmark,
  console: consoleBenchmark,
};

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { seconds: { type: 'string', default: '10' }, help: { type: 'boolean', short: 'h' } },
});

if (values.help) {
  process.stdout.write(`Usage: npm run bench -- [${Object.keys(benchmarks).join('|')}] [--seconds N]

Runs the named benchmarks (all when none is named) on this machine and prints Markdown
tables for docs/benchmarks.md. PostgreSQL runs are included when BENCH_DATABASE_URL (or
TEST_DATABASE_URL) names a server whose user may create databases.
`);
  process.exit(0);
}

const names = positionals.length > 0 ? positionals : Object.keys(benchmarks);
const unknown = names.filter((name) => !(name in benchmarks));
if (unknown.length > 0) {
  process.stderr.write(`unknown benchmark ${unknown.join(', ')}; choose from ${Object.keys(benchmarks).join(', ')}\n`);
  process.exit(2);
}

const seconds = Number(values.seconds);
const postgresUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
const cpu = cpus()[0]?.model ?? 'unknown CPU';
process.stdout.write(
  `# ${new Date().toISOString().slice(0, 10)} · Node ${process.version} · ${cpus().length} × ${cpu} · ${(totalmem() / 2 ** 30).toFixed(0)} GiB · ${seconds} s per run, 50 connections\n\n`,
);
try {
  for (const name of names) {
    process.stderr.write(`running ${name}…\n`);
    process.stdout.write(`## ${name}\n\n${await benchmarks[name]!({ seconds, postgresUrl })}\n\n`);
  }
} finally {
  await dropBenchDatabases();
}
