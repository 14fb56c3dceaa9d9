// npm run bench:compare -- --base <git rev> [--rounds 3] [--seconds 5] [benchmark …]
//
// Runs the named benchmarks of `npm run bench` in a checkout of <rev> and in this one, in
// alternating rounds (base, this, base, this, …) so that a drift of the host falls on both
// sides, and prints the median of each row's req/s and CPU per request on each side with
// the difference. The base checkout is a temporary git worktree sharing this node_modules.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    base: { type: 'string' },
    rounds: { type: 'string', default: '3' },
    seconds: { type: 'string', default: '5' },
    help: { type: 'boolean', short: 'h' },
  },
});
if (values.help || !values.base) {
  process.stdout.write('Usage: npm run bench:compare -- --base <git rev> [--rounds 3] [--seconds 5] [token gateway …]\n');
  process.exit(values.help ? 0 : 2);
}
const rounds = Number(values.rounds);
if (!Number.isInteger(rounds) || rounds < 1 || rounds > 9) throw new Error(`--rounds: a whole number from 1 to 9, not ${values.rounds}`);

const here = new URL('..', import.meta.url).pathname;
const git = (...args: string[]) => {
  const run = spawnSync('git', args, { cwd: here, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`git ${args.join(' ')}: ${run.stderr.trim()}`);
  return run.stdout.trim();
};
const baseRev = git('rev-parse', '--short', values.base);
const headRev = `${git('rev-parse', '--short', 'HEAD')}${git('status', '--porcelain', '--untracked-files=no') ? ' + changes' : ''}`;
const baseDir = join(mkdtempSync(join(tmpdir(), 'tessera-bench-base-')), 'checkout');
git('worktree', 'add', '--detach', baseDir, baseRev);
symlinkSync(join(here, 'node_modules'), join(baseDir, 'node_modules'));

/** Each table row of one `npm run bench` output: `<benchmark> · <row>` → its req/s and CPU µs/req. */
type Figures = Map<string, { rps: number; cpu: number }>;
function runBench(dir: string): Figures {
  const run = spawnSync(
    join(here, 'node_modules/.bin/node'),
    ['--disable-warning=ExperimentalWarning', 'bench/run.ts', ...positionals, '--seconds', String(values.seconds)],
    { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 64 * 2 ** 20 },
  );
  if (run.status !== 0) throw new Error(`npm run bench in ${dir} exited with ${run.status}`);
  const figures: Figures = new Map();
  let section = '';
  let columns: string[] = [];
  for (const line of run.stdout.split('\n')) {
    if (line.startsWith('## ')) section = line.slice(3).trim();
    if (!line.startsWith('|')) continue;
    const cells = line
      .split('|')
      .slice(1, -1)
      .map((cell) => cell.trim());
    if (cells.includes('req/s')) columns = cells;
    const rps = Number(cells[columns.indexOf('req/s')]);
    const cpu = Number(cells[columns.indexOf('CPU µs/req')]);
    if (columns.includes('req/s') && cells[0] && Number.isFinite(rps) && cells[columns.indexOf('req/s')] !== '')
      figures.set(`${section} · ${cells[0]}`, { rps, cpu });
  }
  return figures;
}

const median = (xs: number[]) => {
  const sorted = xs.filter(Number.isFinite).sort((a, b) => a - b);
  return sorted.length === 0 ? Number.NaN : sorted[Math.floor((sorted.length - 1) / 2)]!;
};
const change = (from: number, to: number) => (Number.isFinite(from) && Number.isFinite(to) && from > 0 ? `${(((to - from) / from) * 100).toFixed(1)} %` : '');

const runs: { base: Figures[]; head: Figures[] } = { base: [], head: [] };
try {
  for (let round = 1; round <= rounds; round++) {
    process.stderr.write(`round ${round} of ${rounds}: base ${baseRev}\n`);
    runs.base.push(runBench(baseDir));
    process.stderr.write(`round ${round} of ${rounds}: head ${headRev}\n`);
    runs.head.push(runBench(here));
  }
} finally {
  git('worktree', 'remove', '--force', baseDir);
  rmSync(join(baseDir, '..'), { recursive: true, force: true });
}

const rows = [...new Set([...runs.base, ...runs.head].flatMap((figures) => [...figures.keys()]))];
const out = [
  `Median of ${rounds} alternating rounds, ${values.seconds} s per row: base ${baseRev}, head ${headRev}`,
  '',
  '| row | base req/s | head req/s | change | base CPU µs/req | head CPU µs/req | change |',
  '|---|---:|---:|---:|---:|---:|---:|',
];
for (const row of rows) {
  const pick = (side: Figures[], key: 'rps' | 'cpu') => median(side.map((figures) => figures.get(row)?.[key] ?? Number.NaN));
  const [br, hr, bc, hc] = [pick(runs.base, 'rps'), pick(runs.head, 'rps'), pick(runs.base, 'cpu'), pick(runs.head, 'cpu')];
  out.push(`| ${row} | ${br} | ${hr} | ${change(br, hr)} | ${Number.isFinite(bc) ? bc : ''} | ${Number.isFinite(hc) ? hc : ''} | ${change(bc, hc)} |`);
}
process.stdout.write(`${out.join('\n')}\n`);
