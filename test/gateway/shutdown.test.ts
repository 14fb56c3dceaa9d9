import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { describe, it } from 'node:test';
import { pino } from 'pino';
import { loadGatewayConfig, readGatewayConfig } from '../../src/gateway/config/gateway-config.ts';
import { startGateway } from '../../src/gateway/lifecycle.ts';
import { fileKey, GatewayConfigError } from '../../src/gateway/settings/config-error.ts';

const silent = pino({ level: 'silent' });

/** An upstream that answers /slow only when the test says so. */
async function startUpstream() {
  let release: () => void = () => {};
  const released = new Promise<void>((resolve) => (release = resolve));
  const server: Server = createServer((request, response) => {
    if (request.url === '/slow') void released.then(() => response.end('slow done'));
    else response.end('fast');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return { url, release, close: () => new Promise((resolve) => server.close(resolve)).then(() => server.closeAllConnections()) };
}

const status = async (url: string) => (await fetch(url)).status;

describe('Gateway shutdown', () => {
  it('fails /readyz at once, proxies through shutdown_delay, then stops accepting and lets requests in flight finish', async () => {
    const upstream = await startUpstream();
    const gateway = await startGateway(
      readGatewayConfig({ port: 0, admin_port: 0, default_target: upstream.url, shutdown_delay: '1500ms', shutdown_timeout: '10s' }, fileKey),
      [],
      silent,
    );
    try {
      const slow = fetch(`${gateway.url}/slow`);
      await new Promise((resolve) => setTimeout(resolve, 100));
      const started = Date.now();
      const closing = gateway.close();

      const ready = await fetch(`${gateway.adminUrl}/readyz`);
      assert.equal(ready.status, 503);
      assert.deepEqual(await ready.json(), { result: { status: 'stopping', reasons: ['the gateway is shutting down'] } });
      assert.equal(await status(`${gateway.url}/fast`), 200, 'still proxying during the delay');

      await new Promise((resolve) => setTimeout(resolve, Math.max(0, started + 1_800 - Date.now())));
      await assert.rejects(fetch(`${gateway.url}/fast`, { headers: { connection: 'close' } }), 'no new connections after the delay');
      const released = Date.now();
      upstream.release();
      const answer = await slow;
      assert.equal(answer.status, 200);
      assert.equal(await answer.text(), 'slow done', 'the request in flight was answered');
      await closing;
      assert.ok(Date.now() - released < 3_000, 'idle keep-alive connections did not hold the drain to the timeout');
    } finally {
      upstream.release();
      await upstream.close();
    }
  });

  it('cuts a request still in flight after shutdown_timeout', async () => {
    const upstream = await startUpstream();
    const gateway = await startGateway(
      readGatewayConfig({ port: 0, admin_port: 0, default_target: upstream.url, shutdown_timeout: '300ms' }, fileKey),
      [],
      silent,
    );
    const slow = fetch(`${gateway.url}/slow`).then(
      () => 'answered',
      () => 'cut',
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
    const started = Date.now();
    await gateway.close();
    assert.ok(Date.now() - started < 1_500, `closed after ${Date.now() - started} ms`);
    assert.equal(await slow, 'cut');
    upstream.release();
    await upstream.close();
  });
});

describe('Gateway shutdown settings', () => {
  it('default to no delay and a 10 s drain, and read from the environment', () => {
    assert.deepEqual(loadGatewayConfig({ env: {} }).shutdown, { delayMs: 0, timeoutMs: 10_000 });
    assert.deepEqual(loadGatewayConfig({ env: { GATEWAY_SHUTDOWN_DELAY: '5s', GATEWAY_SHUTDOWN_TIMEOUT: '1m' } }).shutdown, {
      delayMs: 5_000,
      timeoutMs: 60_000,
    });
    assert.equal(loadGatewayConfig({ env: { GATEWAY_SHUTDOWN_DELAY: '0' } }).shutdown.delayMs, 0);
  });

  for (const [name, value, rule] of [
    ['GATEWAY_SHUTDOWN_DELAY', 'soon', /GATEWAY_SHUTDOWN_DELAY: must be a duration such as 500ms, 5s or 1m, at most 5m, or 0/],
    ['GATEWAY_SHUTDOWN_TIMEOUT', '0', /GATEWAY_SHUTDOWN_TIMEOUT: must be a duration such as 500ms, 5s or 1m, at most 5m$/],
    ['GATEWAY_SHUTDOWN_TIMEOUT', '6m', /GATEWAY_SHUTDOWN_TIMEOUT: must be a duration/],
  ] as const) {
    it(`refuses ${name}=${value}, naming the variable and the rule`, () => {
      assert.throws(
        () => loadGatewayConfig({ env: { [name]: value } }),
        (error: unknown) => error instanceof GatewayConfigError && rule.test(error.message),
      );
    });
  }
});
