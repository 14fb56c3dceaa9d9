import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { exited, runCli, spawnCli, waitForOutput } from '../helpers/cli.ts';

/**
 * Runs the request of the printed curl command (method, URL, headers, body) with fetch; `which`
 * picks among several; `fill` puts values in the body's `<placeholders>`.
 */
async function runPrintedCurl(output: string, which = 0, fill: Record<string, string> = {}): Promise<{ status: number; body: any }> {
  const line = output.split('\n').filter((l) => l.trim().startsWith('curl '))[which];
  assert.ok(line, `no curl command in:\n${output}`);
  const url = /curl -s (?:-X \w+ )?(\S+)/.exec(line)![1]!;
  const method = /curl -s -X (\w+)/.exec(line)?.[1] ?? 'GET';
  const headers = Object.fromEntries([...line.matchAll(/-H '([^:]+): ([^']+)'/g)].map((m) => [m[1]!, m[2]!]));
  const body = /-d '([^']*)'/.exec(line)?.[1]?.replace(/<(\w+)>/g, (placeholder, name: string) => fill[name] ?? placeholder);
  const response = await fetch(url, { method, headers, body });
  return { status: response.status, body: await response.json() };
}

const repository = new URL('../..', import.meta.url);

/**
 * Runs a printed command line as a reader does: in bash, in the repository, in another shell
 * that has none of the demo's variables (its data directory only as HOME); answers its JSON.
 */
function runInShell(line: string, home: string): Promise<any> {
  return new Promise((resolve, reject) => {
    execFile('bash', ['-c', line], { cwd: repository, env: { PATH: process.env.PATH ?? '', HOME: home }, timeout: 60_000 }, (error, stdout, stderr) =>
      error ? reject(new Error(`${line}\n${error.message}\n${stderr}`)) : resolve(JSON.parse(stdout)),
    );
  });
}

/** The printed curl through the gateway (the one that takes a token), run in a shell. */
function gatewayCurl(output: string): string {
  const line = output.split('\n').find((l) => l.trim().startsWith('curl ') && l.includes('/orders/42'));
  assert.ok(line, `no curl through the gateway in:\n${output}`);
  return line.trim();
}

/** The printed initiate, the code out of the email the demo writes to its terminal, and the printed verify. */
async function verifyAsPrinted(demo: ChildProcess, banner: string): Promise<{ verified: unknown; email: Record<string, string> }> {
  const emailed = waitForOutput(demo, 'logged instead"');
  const initiated = await runPrintedCurl(banner, 2);
  assert.equal(initiated.status, 201, JSON.stringify(initiated.body));
  const line = (await emailed).split('\n').find((l) => l.includes('logged instead"'))!;
  const { email } = JSON.parse(line) as { email: Record<string, string> };
  const code = /Your verification code is: (\d{6})\n/.exec(email.text!)?.[1];
  assert.ok(code, `the demo shows the code: ${line}`);
  const verified = await runPrintedCurl(banner, 3, { verification_id: initiated.body.result.verification_id, code });
  assert.equal(verified.status, 200, JSON.stringify(verified.body));
  return { verified: verified.body.result.verified, email };
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
      // The curl through the gateway takes a fresh token from "demo token", run in another shell.
      assert.match(gatewayCurl(out1), /-H "Authorization: Bearer \$\(TESSERA_DATABASE=\S+ npm run --silent tessera -- demo token\)"$/);
      const throughGateway = await runInShell(gatewayCurl(out1), dir);
      assert.equal(throughGateway.delegated_token_claims.sub, listed.body.result[0].id, 'the delegated token is for ada');
      assert.match(throughGateway.delegated_token_claims.act.sub, /^cli_/, "with the gateway's client as actor");
      const minted = await runCli(['demo', 'token'], env);
      assert.equal(minted.code, 0, minted.stderr);
      const personToken = minted.stdout.trim();
      assert.equal(minted.stdout, `${personToken}\n`, 'the token alone, for $(…)');
      const claims = JSON.parse(Buffer.from(personToken.split('.')[1]!, 'base64url').toString());
      assert.deepEqual([claims.sub, claims.scope, claims.exp - claims.iat], [listed.body.result[0].id, 'orders:read', 3600], "ada's, for an hour");
      const gatewayUrl = / gateway +(http:\/\/\S+)/.exec(out1)![1]!;
      const echoed = await (await fetch(`${gatewayUrl}/orders/42`, { headers: { authorization: `Bearer ${personToken}` } })).text();
      assert.ok(!echoed.includes(personToken.slice(-20)), "ada's own token did not reach the upstream");
      const verification = await verifyAsPrinted(first, out1);
      assert.equal(verification.verified, true, 'one email verification end to end, as the banner says');
      assert.equal(verification.email.to, 'grace@example.com', "to the address the demo's directory holds");
      const state = join(dir, 'tessera.db.demo.json');
      assert.equal(statSync(state).mode & 0o777, 0o600, 'the kept credentials are readable by their owner only');

      // A second start while the first runs: it says so, changes nothing, and the first keeps working.
      const second = await runCli(['demo'], env);
      assert.equal(second.code, 1);
      assert.match(second.stderr, /a demo of this database is already running \(process \d+\): service http:\/\/127\.0\.0\.1:\d+/);
      assert.ok(!second.stderr.includes('tsk_') && !second.stdout.includes('tsk_'), 'no secret printed again');
      assert.equal((await runPrintedCurl(out1)).status, 200, "the running demo's admin key still works");
      assert.equal(gatewayCurl(second.stderr), gatewayCurl(out1), 'the curl through the gateway again');
      assert.match(
        (await runInShell(gatewayCurl(second.stderr), dir)).delegated_token_claims.act.sub,
        /^cli_/,
        "the running demo's gateway client still works",
      );

      // Grace removed from the directory over SCIM, as a reader trying the deny-gate would: the next start puts her back.
      const { scimToken } = JSON.parse(readFileSync(state, 'utf8')).verification as { scimToken: string };
      const scimUrl = `${/ service +(http:\/\/\S+)/.exec(out1)![1]}/scim/v2/Users`;
      const auth = { authorization: `Bearer ${scimToken}` };
      const found: any = await (await fetch(`${scimUrl}?filter=${encodeURIComponent('userName eq "grace@example.com"')}`, { headers: auth })).json();
      assert.equal((await fetch(`${scimUrl}/${found.Resources[0].id}`, { method: 'DELETE', headers: auth })).status, 204);
      assert.equal((await runPrintedCurl(out1, 2)).status, 404, 'no Grace, no code');
    } finally {
      first.kill('SIGINT');
      assert.equal(await exited(first), 0);
    }
    const none = await runCli(['demo', 'token'], env);
    assert.equal(none.code, 1);
    assert.match(none.stderr, new RegExp(`tessera demo token: no demo of sqlite:${dir}/tessera.db is running: start one with "npm start"`));

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
      assert.match((await runInShell(gatewayCurl(out3), dir)).delegated_token_claims.act.sub, /^cli_/, 'the gateway works with the kept client secret');
      const integrationKey = (out: string) => /Service-API-Key: (tsi_[^']+)'/.exec(out)![1]!;
      assert.equal(integrationKey(out3), integrationKey(out1), 'the integration key is reused');
      assert.equal(/"connection_id":"(con_\w+)"/.exec(out3)![1], /"connection_id":"(con_\w+)"/.exec(out1)![1], 'and the directory');
      assert.equal((await verifyAsPrinted(third, out3)).verified, true, 'Grace is back, and verifies');
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

  it('names every busy port in one message, and two of its own settings that name one port', async () => {
    const servers = [createServer(), createServer()];
    const ports: number[] = [];
    for (const server of servers) {
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      ports.push((server.address() as { port: number }).port);
    }
    try {
      const { dir, env } = demoEnv({ TESSERA_PORT: String(ports[0]), GATEWAY_ADMIN_PORT: String(ports[1]) });
      const busy = await runCli(['demo'], env);
      assert.equal(busy.code, 1);
      assert.equal(
        busy.stderr,
        `tessera demo: 2 ports cannot be used; set TESSERA_PORT, GATEWAY_ADMIN_PORT to other ports:\n` +
          `  TESSERA_PORT: port ${ports[0]} on 127.0.0.1 is taken by another process\n` +
          `  GATEWAY_ADMIN_PORT: port ${ports[1]} on 127.0.0.1 is taken by another process\n`,
      );
      assert.deepEqual(readdirSync(dir), [], 'nothing was written');
    } finally {
      for (const server of servers) server.close();
    }
    // Each would bind alone; the gateway's listen would then fail and be blamed on "another process".
    const free = ports[0]!;
    const { dir, env } = demoEnv({ TESSERA_PORT: String(free), GATEWAY_PORT: String(free) });
    const same = await runCli(['demo'], env);
    assert.equal(same.code, 1);
    assert.match(
      same.stderr,
      new RegExp(`TESSERA_PORT and GATEWAY_PORT: both name port ${free} on 127.0.0.1, which only one can have; set GATEWAY_PORT to another port`),
    );
    assert.deepEqual(readdirSync(dir), [], 'nothing was written');
  });
});
