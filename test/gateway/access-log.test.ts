import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import { readGatewayConfig } from '../../src/gateway/config/gateway-config.ts';
import { type RunningGateway, startGateway } from '../../src/gateway/lifecycle.ts';
import type { RequestPlugin } from '../../src/gateway/plugins/plugin.ts';
import { fileKey } from '../../src/gateway/settings/config-error.ts';
import { type RecordingUpstream, startRecordingUpstream } from '../helpers/recording-upstream.ts';

/** A pino logger at `level` whose JSON lines the test reads. */
function capturedLog(level: string) {
  const lines: Record<string, unknown>[] = [];
  const raw: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      raw.push(String(chunk));
      lines.push(JSON.parse(String(chunk)) as Record<string, unknown>);
      done();
    },
  });
  return { log: pino({ level }, sink), lines, raw };
}

// Issue 27 §3: no line said which requests went through, even at debug level.
describe('Gateway access log (debug level)', () => {
  let orders: RecordingUpstream;
  let fallback: RecordingUpstream;
  const gateways: RunningGateway[] = [];
  // Stands for the token-exchange plugin: it writes a credential the log must never show.
  const delegating: RequestPlugin = {
    id: 'delegate',
    enabled: true,
    async run({ headers }) {
      headers.authorization = 'Bearer delegated-secret-token';
    },
  };
  const start = async (level: string) => {
    const captured = capturedLog(level);
    const config = readGatewayConfig(
      {
        port: 0,
        admin_port: 0,
        default_target: fallback.url,
        urls: [{ pattern: '*/orders/*', target: `${orders.url}/v2` }],
      },
      fileKey,
    );
    // The plugin is this test's, not the configuration's, so its switch is set here.
    config.urls[0]!.plugins.delegate = false;
    const gateway = await startGateway(config, [delegating], captured.log);
    gateways.push(gateway);
    return { gateway, ...captured };
  };

  before(async () => {
    orders = await startRecordingUpstream();
    fallback = await startRecordingUpstream();
  });
  after(async () => {
    for (const gateway of gateways) await gateway.close();
    await Promise.all([orders.close(), fallback.close()]);
  });

  it('writes one line per proxied request: method, path as sent upstream, rule, plugins, status, duration; never a query or a credential', async () => {
    const { gateway, lines, raw } = await start('debug');
    const caller = { authorization: 'Bearer caller-secret-token', cookie: 'session=cookie-secret' };
    assert.equal((await fetch(`${gateway.url}/orders/%34%32?api_key=query-secret`, { headers: caller })).status, 200);
    assert.equal((await fetch(`${gateway.url}/stock?token=query-secret`, { method: 'POST', headers: caller, body: 'x' })).status, 200);
    assert.equal((await fetch(`${gateway.url}/a%2Fb`)).status, 400, 'a refusal');
    const proxied = lines.filter((line) => line.msg === 'proxied');
    assert.equal(proxied.length, 2, 'one line per proxied request, none for the refusal (logged where it is answered)');
    const [first, second] = proxied.map(({ level, time, pid, hostname, requestId, durationMs, ...rest }) => {
      assert.equal(level, 20, 'debug');
      assert.match(String(requestId), /^[0-9a-f-]{36}$/);
      assert.ok(typeof durationMs === 'number' && durationMs >= 0);
      return rest;
    });
    assert.deepEqual(first, {
      msg: 'proxied',
      method: 'GET',
      path: '/v2/orders/42',
      upstream: orders.url,
      rule: '*/orders/*',
      plugins: [],
      status: 200,
    });
    assert.deepEqual(second, {
      msg: 'proxied',
      method: 'POST',
      path: '/stock',
      upstream: fallback.url,
      rule: 'default_target',
      plugins: ['delegate'],
      status: 200,
    });
    for (const secret of ['query-secret', 'caller-secret-token', 'cookie-secret', 'delegated-secret-token', 'api_key'])
      assert.ok(!raw.join('').includes(secret), `the log holds ${secret}`);
  });

  it('writes nothing per request at info, the default', async () => {
    const { gateway, lines } = await start('info');
    assert.equal((await fetch(`${gateway.url}/orders/1`)).status, 200);
    assert.deepEqual(lines, []);
  });
});
