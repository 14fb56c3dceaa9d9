import type { Outcome } from './ledger.ts';
import type { SoakResult } from './soak.ts';

const order = (a: Outcome, b: Outcome) => (typeof a === 'number' && typeof b === 'number' ? a - b : typeof a === 'number' ? -1 : typeof b === 'number' ? 1 : 0);

/** The run as Markdown tables: requests and outcomes per operation, faults injected, invariants. */
export function soakReport(result: SoakResult): string {
  const { ledger } = result;
  const columns = [...new Set([...ledger.outcomes.values()].flatMap((counts) => [...counts.keys()]))].sort(order);
  const rows = [...ledger.outcomes].sort(([a], [b]) => a.localeCompare(b));
  const total = (outcome: Outcome) => ledger.count(outcome);
  const lines = [
    `${ledger.requests} requests in ${result.seconds} s of load with faults (after ${result.warmUpSeconds} s of warm-up without), ${result.faults.length} faults injected.`,
    '',
    `| operation | requests | ${columns.join(' | ')} |`,
    `|---|---:|${columns.map(() => '---:').join('|')}|`,
    ...rows.map(([operation, counts]) => {
      const n = [...counts.values()].reduce((sum, c) => sum + c, 0);
      return `| ${operation} | ${n} | ${columns.map((c) => counts.get(c) ?? '').join(' | ')} |`;
    }),
    `| **all** | **${ledger.requests}** | ${columns.map((c) => `**${total(c)}**`).join(' | ')} |`,
    '',
    '`network`: the connection was refused or cut (the replica killed under it), no answer to count.',
    '',
    '| answers other than 2xx, by code | count |',
    '|---|---:|',
    ...[...ledger.codes].sort(([a], [b]) => a.localeCompare(b)).map(([code, n]) => `| ${code} | ${n} |`),
    '',
    '| fault | at | lasted |',
    '|---|---:|---:|',
    ...result.faults.map((f) => `| ${f.name} | ${f.atSeconds.toFixed(1)} s | ${(f.tookMs / 1000).toFixed(1)} s |`),
    '',
    '| invariant | held | |',
    '|---|---|---|',
    ...result.invariants.map((i) => `| ${i.name} | ${i.held ? 'yes' : '**NO**'} | ${i.detail} |`),
    '',
    `Resident memory of the replica that was not killed, every 10 s of the run (MiB): ${result.survivorTrend.join(', ')}.`,
  ];
  return `${lines.join('\n')}\n`;
}
