import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Agent, request } from 'undici';
import { exited, runCli, spawnCli, waitForOutput } from '../helpers/cli.ts';

/** The pids named in the primary's "N workers listening on port P (pids a, b)" line, and P. */
function workersLine(out: string): { port: number; pids: number[] } {
  const match = /(\d+) workers listening on port (\d+) \(pids ([\d, ]+)\)/.exec(out);
  assert.ok(match, `no workers line in:\n${out}`);
  return { port: Number(match[2]), pids: match[3]!.split(', ').map(Number) };
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function until(check: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('TESSERA_WORKERS=2: two service processes on one port', () => {
  let directory: string;
  let child: ChildProcess;
  let out = '';
  let line: { port: number; pids: number[] };
  before(async () => {
    directory = mkdtempSync(join(tmpdir(), 'tessera-workers-'));
    child = spawnCli(['service'], {
      TESSERA_DEV: '1',
      TESSERA_PORT: '0',
      TESSERA_WORKERS: '2',
      TESSERA_DATABASE: `sqlite:${join(directory, 'db.sqlite')}`,
    });
    child.stdout!.on('data', (chunk) => (out += chunk));
    await waitForOutput(child, 'workers listening');
    line = workersLine(out);
  });
  after(async () => {
    if (child.exitCode === null) child.kill('SIGKILL');
    rmSync(directory, { recursive: true, force: true });
  });

  it('answers on the one port from both workers, over the one database', async () => {
    assert.equal(line.pids.length, 2);
    // A connection each: the primary hands connections to workers in turn.
    for (let i = 0; i < 6; i++) {
      const dispatcher = new Agent({ pipelining: 0 });
      const response = await request(`http://127.0.0.1:${line.port}/healthz`, { dispatcher });
      assert.equal(response.statusCode, 200);
      await response.body.dump();
      await dispatcher.close();
    }
    await until(() => line.pids.every((pid) => new RegExp(`"pid":${pid}[^\\n]*"statusCode":200`).test(out)), 5_000);
  });

  it('starts another worker when one dies, and serves on', async () => {
    // A worker that dies within 10 s of starting is a crash loop (start-up stops); after that it is replaced.
    await new Promise((resolve) => setTimeout(resolve, 10_500));
    const [victim] = line.pids as [number];
    process.kill(victim, 'SIGKILL');
    await until(() => new RegExp(`worker ${victim} stopped with signal SIGKILL; starting another`).test(out), 5_000);
    await until(() => (out.match(/"msg":"tessera service started"/g) ?? []).length === 3, 15_000);
    const response = await request(`http://127.0.0.1:${line.port}/healthz`);
    assert.equal(response.statusCode, 200);
    await response.body.dump();
  });

  it('stops every worker on SIGTERM and exits 0', async () => {
    const pids = [...out.matchAll(/"pid":(\d+)[^\n]*"msg":"tessera service started"/g)].map((m) => Number(m[1]));
    child.kill('SIGTERM');
    assert.equal(await exited(child), 0);
    await until(() => pids.every((pid) => !alive(pid)), 5_000);
  });
});

describe('TESSERA_WORKERS=2 and a signal to the whole process group', () => {
  it('regression: each worker got SIGTERM twice (from the group, and passed on by the primary) and died mid-drain; now it drains', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'tessera-workers-'));
    const child = spawnCli(
      ['service'],
      { TESSERA_DEV: '1', TESSERA_PORT: '0', TESSERA_WORKERS: '2', TESSERA_SHUTDOWN_DELAY: '2', TESSERA_DATABASE: `sqlite:${join(directory, 'db.sqlite')}` },
      { detached: true },
    );
    try {
      const { port } = workersLine(await waitForOutput(child, 'workers listening'));
      const started = Date.now();
      process.kill(-child.pid!, 'SIGTERM');
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      const ready = await request(`http://127.0.0.1:${port}/readyz`);
      await ready.body.dump();
      assert.equal(ready.statusCode, 503, 'still serving through TESSERA_SHUTDOWN_DELAY, not ready');
      assert.equal(await exited(child), 0);
      assert.ok(Date.now() - started >= 2_000, `exited after ${Date.now() - started} ms, before the 2 s delay`);
    } finally {
      if (child.exitCode === null) process.kill(-child.pid!, 'SIGKILL');
      rmSync(directory, { recursive: true, force: true });
    }
  });
});

describe('TESSERA_WORKERS refusals', () => {
  it('names the variable and its rule for a value out of range', async () => {
    const result = await runCli(['service'], { TESSERA_DEV: '1', TESSERA_WORKERS: '0' });
    assert.notEqual(result.code, 0);
    assert.match(result.stderr, /TESSERA_WORKERS: must be an integer from 1 to 64, or auto/);
  });

  it('refuses several workers on a memory database, which each would have to itself', async () => {
    const result = await runCli(['service'], { TESSERA_DEV: '1', TESSERA_WORKERS: '2', TESSERA_DATABASE: 'sqlite::memory:' });
    assert.notEqual(result.code, 0);
    assert.match(result.stderr, /TESSERA_WORKERS: must be 1 with TESSERA_DATABASE=sqlite::memory:/);
  });

  it('stops start-up, every worker with it, when the workers cannot listen (a taken port)', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'tessera-workers-'));
    const first = spawnCli(['service'], { TESSERA_DEV: '1', TESSERA_PORT: '0', TESSERA_DATABASE: `sqlite:${join(directory, 'a.sqlite')}` });
    try {
      const started = await waitForOutput(first, 'tessera service started');
      const port = /"url":"http:\/\/127\.0\.0\.1:(\d+)"/.exec(started)![1]!;
      const result = await runCli(['service'], {
        TESSERA_DEV: '1',
        TESSERA_PORT: port,
        TESSERA_WORKERS: '2',
        TESSERA_DATABASE: `sqlite:${join(directory, 'b.sqlite')}`,
      });
      assert.equal(result.code, 1);
      assert.match(result.stdout + result.stderr, /TESSERA_PORT/);
      assert.match(result.stdout, /before it listened; stopping the others/);
    } finally {
      first.kill('SIGTERM');
      await exited(first);
      rmSync(directory, { recursive: true, force: true });
    }
  });
});

describe('GATEWAY_WORKERS=2: two gateway processes on the proxy and admin ports', () => {
  it('proxies and answers /readyz from the workers, and stops them all on SIGTERM', async () => {
    const upstream = createServer((_request, response) => response.end(`upstream ${process.pid}`));
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const child = spawnCli(['gateway'], {
      GATEWAY_WORKERS: '2',
      GATEWAY_PORT: '0',
      GATEWAY_ADMIN_PORT: String(await freePort()),
      GATEWAY_DEFAULT_TARGET: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`,
    });
    try {
      const out = await waitForOutput(child, 'workers listening');
      const match = /2 workers listening on port (\d+) and (\d+)/.exec(out);
      assert.ok(match, out);
      const ports = [Number(match[1]), Number(match[2])];
      const answers = await Promise.all(ports.map(async (port) => (await request(`http://127.0.0.1:${port}/readyz`)).statusCode));
      // One of the two is the admin port (/readyz 200), the other the proxy (the upstream's answer, 200 too).
      assert.deepEqual(answers, [200, 200]);
      const proxied = await Promise.all(ports.map(async (port) => (await request(`http://127.0.0.1:${port}/x`)).body.text()));
      assert.ok(
        proxied.some((body) => body.startsWith('upstream ')),
        proxied.join(' | '),
      );
      child.kill('SIGTERM');
      assert.equal(await exited(child), 0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      upstream.close();
    }
  });
});

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}
