import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import { readGatewayConfig } from '../../src/gateway/config/gateway-config.ts';
import { type RunningGateway, startGateway } from '../../src/gateway/lifecycle.ts';
import type { RequestPlugin } from '../../src/gateway/plugins/plugin.ts';
import { GatewayError } from '../../src/gateway/request/gateway-error.ts';
import { fileKey } from '../../src/gateway/settings/config-error.ts';
import { type RecordingUpstream, startRecordingUpstream } from '../helpers/recording-upstream.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('Gateway request ids', () => {
  let upstream: RecordingUpstream;
  let gateway: RunningGateway;
  const lines: Record<string, unknown>[] = [];
  // Refuses requests to /refused the way a token-exchange plugin refuses a missing token.
  const refuser: RequestPlugin = {
    id: 'refuser',
    enabled: true,
    async run({ inbound }) {
      if (inbound.target.path === '/api/refused') throw new GatewayError('GATEWAY_SUBJECT_MISSING', 'no subject token');
    },
  };

  before(async () => {
    upstream = await startRecordingUpstream();
    const config = readGatewayConfig({ port: 0, admin_port: 0, urls: [{ pattern: '*/api/*', target: upstream.url }], plugins: [] }, fileKey);
    const log = pino(
      { level: 'info' },
      new Writable({
        write(chunk, _e, done) {
          lines.push(JSON.parse(String(chunk)));
          done();
        },
      }),
    );
    gateway = await startGateway(config, [refuser], log);
  });
  after(async () => {
    await gateway.close();
    await upstream.close();
  });

  it('answers every refusal with an X-Request-Id, and logs the refusal with it', async () => {
    for (const path of ['/nowhere', '/api/../../x', '/api/refused']) {
      const response = await fetch(`${gateway.url}${path}`);
      assert.ok(response.status >= 400, path);
      const id = response.headers.get('x-request-id');
      assert.match(id ?? '', UUID, `${path} carries a generated id`);
      const line = lines.find((l) => l.requestId === id);
      assert.ok(line, `the refusal of ${path} is logged with its id`);
      assert.equal(line.code, ((await response.json()) as { errors: { code: string }[] }).errors[0]!.code);
    }
  });

  it('keeps a sane id of the caller, forwards it upstream, and replaces one that is not sane', async () => {
    const kept = await fetch(`${gateway.url}/api/orders`, { headers: { 'x-request-id': 'trace-42.abc' } });
    assert.equal(kept.status, 200);
    assert.equal(kept.headers.get('x-request-id'), 'trace-42.abc');
    assert.equal(upstream.requests.at(-1)!.headers['x-request-id'], 'trace-42.abc');

    const generated = await fetch(`${gateway.url}/api/orders`);
    assert.match(generated.headers.get('x-request-id')!, UUID);
    assert.equal(upstream.requests.at(-1)!.headers['x-request-id'], generated.headers.get('x-request-id'), 'upstream and caller see the same id');

    for (const insane of ['x'.repeat(129), 'two words', 'caf\u00e9']) {
      const response = await fetch(`${gateway.url}/api/refused`, { headers: { 'x-request-id': Buffer.from(insane).toString('latin1') } });
      assert.match(response.headers.get('x-request-id')!, UUID, `"${insane}" is replaced`);
    }
    const refused = await fetch(`${gateway.url}/api/refused`, { headers: { 'x-request-id': 'caller-7' } });
    assert.equal(refused.headers.get('x-request-id'), 'caller-7');
    assert.ok(
      lines.some((l) => l.requestId === 'caller-7' && l.code === 'GATEWAY_SUBJECT_MISSING'),
      JSON.stringify(lines.slice(-2)),
    );
  });

  it("passes a caller's traceparent, tracestate and baggage to the upstream as sent when tracing is off (no OTLP endpoint), and logs no trace ids", async () => {
    const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    const sent = { traceparent, tracestate: 'vendor=opaque', baggage: 'tenant=acme' };
    assert.equal((await fetch(`${gateway.url}/api/orders`, { headers: sent })).status, 200);
    const received = upstream.requests.at(-1)!.headers;
    assert.deepEqual([received.traceparent, received.tracestate, received.baggage], [traceparent, 'vendor=opaque', 'tenant=acme']);
    assert.ok(lines.every((line) => !('trace_id' in line)));
  });
});
