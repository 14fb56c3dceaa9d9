import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exited, spawnCli, waitForOutput } from '../helpers/cli.ts';

/** Runs the request of the printed curl command (URL and headers) with fetch; `which` picks among several. */
async function runPrintedCurl(output: string, which = 0): Promise<{ status: number; body: any }> {
  const line = output.split('\n').filter((l) => l.trim().startsWith('curl '))[which];
  assert.ok(line, `no curl command in:\n${output}`);
  const url = /curl -s (\S+)/.exec(line)![1]!;
  const headers = Object.fromEntries([...line.matchAll(/-H '([^:]+): ([^']+)'/g)].map((m) => [m[1]!, m[2]!]));
  const response = await fetch(url, { headers });
  return { status: response.status, body: await response.json() };
}

describe('npm start (tessera demo)', () => {
  it('starts, prints a curl that works, and is idempotent on the next run', async () => {
    const env = { TESSERA_PORT: '0', GATEWAY_PORT: '0', GATEWAY_ADMIN_PORT: '0', TESSERA_DATABASE: `sqlite:${join(mkdtempSync(join(tmpdir(), 'tessera-demo-')), 'tessera.db')}` };

    const first = spawnCli(['demo'], env);
    const out1 = await waitForOutput(first, 'Press Ctrl+C');
    assert.match(out1, /organisation {2}"demo" (org_\w+) \(created now\)/);
    const orgId = /"demo" (org_\w+)/.exec(out1)![1];
    const listed = await runPrintedCurl(out1);
    assert.equal(listed.status, 200);
    assert.deepEqual(listed.body.result.map((p: { handles: { value: string }[] }) => p.handles[0]!.value), ['ada@example.com']);
    const throughGateway = await runPrintedCurl(out1, 1);
    assert.equal(throughGateway.status, 200);
    const personToken = /Authorization: Bearer ([^']+)'/.exec(out1)![1]!;
    assert.equal(throughGateway.body.delegated_token_claims.sub, listed.body.result[0].id, 'the delegated token is for ada');
    assert.match(throughGateway.body.delegated_token_claims.act.sub, /^cli_/, 'with the gateway\'s client as actor');
    assert.ok(!JSON.stringify(throughGateway.body).includes(personToken.slice(-20)), 'ada\'s own token did not reach the upstream');
    first.kill('SIGINT');
    assert.equal(await exited(first), 0);

    const second = spawnCli(['demo'], env);
    const out2 = await waitForOutput(second, 'Press Ctrl+C');
    try {
      assert.match(out2, new RegExp(`"demo" ${orgId} \\(from an earlier run\\)`));
      const again = await runPrintedCurl(out2);
      assert.equal(again.status, 200);
      assert.equal((await runPrintedCurl(out2, 1)).status, 200, 'the gateway works with the renewed client secret');
      assert.equal(again.body.result.length, 1, 'no second demo person');
      const url = /curl -s (\S+)/.exec(out2)![1]!;
      const oldKey = /Service-API-Key: ([^']+)'/.exec(out1)![1]!;
      const stale = await fetch(url, { headers: { 'service-orgid': orgId!, 'service-api-key': oldKey } });
      assert.equal(stale.status, 401, 'the previous run’s key was revoked');
    } finally {
      second.kill('SIGTERM');
      assert.equal(await exited(second), 0);
    }
  });
});
