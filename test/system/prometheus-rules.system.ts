import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

// Issue 28 §4: the alerting rules in ops/prometheus/ are the ones Prometheus would load, and each
// alert their unit tests cover fires on its failure and stays quiet on a healthy baseline.
const rules = fileURLToPath(new URL('../../ops/prometheus/', import.meta.url));

function promtool(...args: string[]): { status: number | null; output: string } {
  const run = spawnSync('promtool', args, { cwd: rules, encoding: 'utf8' });
  if (run.error && (run.error as NodeJS.ErrnoException).code === 'ENOENT') {
    assert.fail('promtool is not installed: it comes with Prometheus (Debian or Ubuntu: apt-get install prometheus; elsewhere: prometheus.io/download)');
  }
  if (run.error) throw run.error;
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

describe('Prometheus alerting rules (ops/prometheus/tessera-alerts.yml)', () => {
  it('pass `promtool check rules`, with no rule left out', () => {
    const { status, output } = promtool('check', 'rules', 'tessera-alerts.yml');
    assert.equal(status, 0, output);
    const alerts = readFileSync(`${rules}tessera-alerts.yml`, 'utf8').match(/^\s+- alert: /gm)?.length ?? 0;
    assert.match(output, new RegExp(`SUCCESS: ${alerts} rules found`));
    assert.ok(alerts >= 10, `${alerts} alerts`);
  });

  it('pass their unit tests (`promtool test rules tessera-alerts.test.yml`): each alert fires when it should, none on a healthy baseline', () => {
    const { status, output } = promtool('test', 'rules', 'tessera-alerts.test.yml');
    assert.equal(status, 0, output);
    assert.match(output, /SUCCESS/);
  });
});
