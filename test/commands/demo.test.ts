import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { exited, runCli, spawnCli, waitForOutput } from '../helpers/cli.ts';

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
  const directories: string[] = [];
  after(() => {
    for (const dir of directories) rmSync(dir, { recursive: true, force: true });
  });
  /** The demo's environment over a data directory of its own, never the real home directory. */
  const demoEnv = (ports: Record<string, string> = {}) => {
    const dir = mkdtempSync(join(tmpdir(), 'tessera-demo-'));
    directories.push(dir);
    return { dir, env: { TESSERA_DATA_DIR: dir, HOME: dir, TESSERA_PORT: '0', GATEWAY_PORT: '0', GATEWAY_ADMIN_PORT: '0', ...ports } };
  };

  it('starts, prints curls that work, refuses to start twice, and reuses its credentials on the next run', async () => {
    const { dir, env } = demoEnv();
    const first = spawnCli(['demo'], env);
    let out1: string;
    try {
      out1 = await waitForOutput(first, 'Press Ctrl+C');
      assert.match(out1, /organisation {2}"demo" (org_\w+) \(created now\)/);
      assert.match(out1, new RegExp(`database {6}sqlite:${dir}/tessera.db\n`), 'the database path is printed');
      const listed = await runPrintedCurl(out1);
      assert.equal(listed.status, 200);
      assert.deepEqual(
        listed.body.result.map((p: { handles: { value: string }[] }) => p.handles[0]!.value),
        ['ada@example.com'],
      );
      const throughGateway = await runPrintedCurl(out1, 1);
      assert.equal(throughGateway.status, 200);
      const personToken = /Authorization: Bearer ([^']+)'/.exec(out1)![1]!;
      assert.equal(throughGateway.body.delegated_token_claims.sub, listed.body.result[0].id, 'the delegated token is for ada');
      assert.match(throughGateway.body.delegated_token_claims.act.sub, /^cli_/, "with the gateway's client as actor");
      assert.ok(!JSON.stringify(throughGateway.body).includes(personToken.slice(-20)), "ada's own token did not reach the upstream");
      const state = join(dir, 'tessera.db.demo.json');
      assert.equal(statSync(state).mode & 0o777, 0o600, 'the kept credentials are readable by their owner only');

      // A second start while the first runs: it says so, changes nothing, and the first keeps working.
      const second = await runCli(['demo'], env);
      assert.equal(second.code, 1);
      assert.match(second.stderr, /a demo of this database is already running \(process \d+\): service http:\/\/127\.0\.0\.1:\d+/);
      assert.ok(!second.stderr.includes('tsk_') && !second.stdout.includes('tsk_'), 'no secret printed again');
      assert.equal((await runPrintedCurl(out1)).status, 200, "the running demo's admin key still works");
      assert.equal((await runPrintedCurl(out1, 1)).status, 200, "the running demo's gateway client still works");
    } finally {
      first.kill('SIGINT');
      assert.equal(await exited(first), 0);
    }

    const third = spawnCli(['demo'], env);
    try {
      const out3 = await waitForOutput(third, 'Press Ctrl+C');
      const orgId = /"demo" (org_\w+)/.exec(out1)![1];
      assert.match(out3, new RegExp(`"demo" ${orgId} \\(from an earlier run\\)`));
      const key = (out: string) => /Service-API-Key: ([^']+)'/.exec(out)![1]!;
      assert.equal(key(out3), key(out1), 'the admin key is reused, not rotated');
      const again = await runPrintedCurl(out3);
      assert.equal(again.status, 200);
      assert.equal(again.body.result.length, 1, 'no second demo person');
      assert.equal((await runPrintedCurl(out3, 1)).status, 200, 'the gateway works with the kept client secret');
    } finally {
      third.kill('SIGTERM');
      assert.equal(await exited(third), 0);
    }
  });

  it('names the variable of a busy port and changes nothing', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    try {
      for (const variable of ['TESSERA_PORT', 'GATEWAY_PORT', 'GATEWAY_ADMIN_PORT']) {
        const { dir, env } = demoEnv({ [variable]: String(port) });
        const result = await runCli(['demo'], env);
        assert.equal(result.code, 1, variable);
        assert.match(result.stderr, new RegExp(`${variable}: port ${port} on 127.0.0.1 is taken by another process; set ${variable} to another port`));
        assert.deepEqual(readdirSync(dir), [], 'no database and no credentials were written');
      }
    } finally {
      server.close();
    }
  });
});
