import { readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { parseArgs } from 'node:util';
import { soakReport } from './report.ts';
import { runSoak } from './soak.ts';

const HELP = `Usage: npm run soak -- [--seconds N] [--cycle N] [--rate N] [--warm-up N] [--write]

Runs two service replicas on a PostgreSQL of the soak's own, two gateways, an SMTP server and an
upstream on loopback under a bounded mixed load, and injects the fault matrix once per cycle:
a replica SIGKILLed and restarted, PostgreSQL restarted, the token endpoint failing and then
hanging behind the gateways, the SMTP server refusing mail. Then checks the invariants and
prints the tables. Exits 1 when an invariant did not hold.

  --seconds N   load with faults, after the warm-up (default 300)
  --cycle N     seconds per cycle of the fault matrix (default 60)
  --warm-up N   seconds of load without faults before the memory baseline (default 60)
  --rate N      operations a second, over all kinds (default 40)
  --write       also write the tables into docs/reliability.md, with command, date and machine
`;

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '300' },
    cycle: { type: 'string', default: '60' },
    'warm-up': { type: 'string', default: '60' },
    rate: { type: 'string', default: '40' },
    write: { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h' },
  },
});
if (values.help) {
  process.stdout.write(HELP);
  process.exit(0);
}
const [seconds, cycleSeconds, rate, warmUpSeconds] = [values.seconds, values.cycle, values.rate, values['warm-up']].map(Number) as [
  number,
  number,
  number,
  number,
];
if (![seconds, cycleSeconds, rate, warmUpSeconds].every((n) => Number.isInteger(n) && n > 0)) {
  process.stderr.write(`--seconds, --cycle, --rate and --warm-up take whole numbers above 0\n\n${HELP}`);
  process.exit(2);
}

const result = await runSoak({ seconds, cycleSeconds, rate, warmUpSeconds, log: (line) => process.stdout.write(`${line}\n`) });
const report = soakReport(result);
process.stdout.write(`\n${report}`);
if (values.write) {
  const command = `npm run soak -- --seconds ${seconds} --cycle ${cycleSeconds} --rate ${rate} --warm-up ${warmUpSeconds}`;
  const machine = `${cpus().length} × ${cpus()[0]?.model.trim()}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`;
  const section = `## Long run\n\n\`${command}\` on ${new Date().toISOString().slice(0, 10)}, ${machine}.\n\n${report}`;
  const path = new URL('../docs/reliability.md', import.meta.url);
  const doc = readFileSync(path, 'utf8');
  const start = doc.indexOf('## Long run');
  const end = start === -1 ? -1 : doc.indexOf('\n## ', start + 1);
  writeFileSync(path, start === -1 ? `${doc.trimEnd()}\n\n${section}` : `${doc.slice(0, start)}${section}${end === -1 ? '' : doc.slice(end)}`);
  process.stdout.write('\nwritten into docs/reliability.md\n');
}
process.exit(result.invariants.every((i) => i.held) ? 0 : 1);
