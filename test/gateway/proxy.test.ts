import assert from 'node:assert/strict';
import { createServer, request as rawRequest, type Server } from 'node:http';
import { after, before, beforeEach, describe, it } from 'node:test';
import { pino } from 'pino';
import { readGatewayConfig } from '../../src/gateway/config/gateway-config.ts';
import { type RunningGateway, startGateway } from '../../src/gateway/lifecycle.ts';
import type { RequestPlugin } from '../../src/gateway/plugins/plugin.ts';
import { fileKey } from '../../src/gateway/settings/config-error.ts';
import { type RecordingUpstream, startRecordingUpstream } from '../helpers/recording-upstream.ts';

const silent = pino({ level: 'silent' });

/** Sends a request with exactly these raw headers (fetch would merge or refuse some). */
function send(
  url: string,
  path: string,
  headers: [string, string][],
  body?: string,
): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = rawRequest(
      `${url}${path}`,
      { method: body === undefined ? 'GET' : 'POST', headers: headers.flat() as unknown as Record<string, string> },
      (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('Gateway proxy core', () => {
  let orders: RecordingUpstream;
  let fallback: RecordingUpstream;
  let gateway: RunningGateway;
  const tagger: RequestPlugin = {
    id: 'tagger',
    enabled: true,
    async run({ headers }) {
      headers['x-tagged'] = 'yes';
    },
  };

  before(async () => {
    orders = await startRecordingUpstream();
    fallback = await startRecordingUpstream();
    const config = readGatewayConfig(
      {
        port: 0,
        admin_port: 0,
        upstream_timeout: '300ms',
        default_target: fallback.url,
        urls: [
          { pattern: 'api.example.com/orders/*', target: `${orders.url}/v1` },
          { pattern: '*.example.com:*/*', target: orders.url },
        ],
        plugins: [],
      },
      fileKey,
    );
    // The tagger is a plugin of this test, not of the configuration, so its switch is set here.
    config.urls[0]!.plugins.tagger = false;
    gateway = await startGateway(config, [tagger], silent);
  });
  after(async () => {
    await gateway.close();
    await orders.close();
    await fallback.close();
  });
  beforeEach(() => {
    orders.requests.length = 0;
    fallback.requests.length = 0;
    orders.delayMs = 0;
  });

  it('routes by host and path, first rule first, prefixing the target path; falls back to the default target', async () => {
    const first = await send(gateway.url, '/orders/42?x=1', [['Host', 'api.example.com']]);
    assert.equal(first.status, 200);
    assert.equal(orders.requests[0]!.url, '/v1/orders/42?x=1');
    await send(gateway.url, '/other', [['Host', 'shop.example.com:8443']]);
    assert.equal(orders.requests[1]!.url, '/other');
    await send(gateway.url, '/anything', [['Host', 'unknown.test']]);
    assert.equal(fallback.requests[0]!.url, '/anything');
  });

  it('removes hop-by-hop headers and the ones Connection names, and sets X-Forwarded-* itself', async () => {
    await send(gateway.url, '/orders/1', [
      ['Host', 'api.example.com'],
      ['Connection', 'keep-alive, X-Internal'],
      ['X-Internal', 'secret'],
      ['Keep-Alive', 'timeout=5'],
      ['TE', 'trailers'],
      ['X-Forwarded-For', '203.0.113.9'],
      ['X-Keep', 'kept'],
    ]);
    const seen = orders.requests[0]!.headers;
    for (const name of ['x-internal', 'keep-alive', 'te']) assert.equal(seen[name], undefined, name);
    assert.equal(seen['x-keep'], 'kept');
    assert.equal(seen['x-forwarded-for'], '127.0.0.1', "an untrusted caller's X-Forwarded-For is replaced");
    assert.deepEqual([seen['x-forwarded-proto'], seen['x-forwarded-host']], ['http', 'api.example.com']);
  });

  it('streams request and response bodies and passes status and headers through', async () => {
    const body = 'x'.repeat(3 * 1024 * 1024);
    const response = await send(
      gateway.url,
      '/orders/upload',
      [
        ['Host', 'api.example.com'],
        ['Content-Type', 'text/plain'],
      ],
      body,
    );
    assert.equal(response.status, 200);
    assert.equal(JSON.parse(response.body).bytes, body.length);
    assert.equal(response.headers['x-upstream'], 'yes');
  });

  it('regression: an upload with Expect: 100-continue (curl sends it for large bodies) got 502; now it goes through', async () => {
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = rawRequest(
        `${gateway.url}/orders/upload`,
        { method: 'POST', headers: { host: 'api.example.com', expect: '100-continue', 'content-length': '5' } },
        (res) => {
          let body = '';
          res.on('data', (c) => (body += c)).on('end', () => resolve({ status: res.statusCode!, body }));
        },
      );
      req.on('continue', () => req.end('hello')).on('error', reject);
    });
    assert.equal(answer.status, 200);
    assert.equal(JSON.parse(answer.body).bytes, 5);
    assert.equal(orders.requests[0]!.headers.expect, undefined);
  });

  it('runs plugins unless the URL rule disables them', async () => {
    await send(gateway.url, '/orders/1', [['Host', 'api.example.com']]);
    await send(gateway.url, '/x', [['Host', 'shop.example.com:80']]);
    assert.deepEqual(
      orders.requests.map((r) => r.headers['x-tagged']),
      [undefined, 'yes'],
    );
  });

  it('refuses two Authorization headers with 400 and forwards nothing', async () => {
    const response = await send(gateway.url, '/x', [
      ['Host', 'shop.example.com'],
      ['Authorization', 'Bearer a'],
      ['Authorization', 'Bearer b'],
    ]);
    assert.equal(response.status, 400);
    assert.equal(JSON.parse(response.body).errors[0].code, 'GATEWAY_DUPLICATE_AUTHORIZATION');
    assert.equal(orders.requests.length + fallback.requests.length, 0);
  });

  it('answers 504 when the upstream is slower than upstream_timeout', async () => {
    orders.delayMs = 1_000;
    const response = await send(gateway.url, '/x', [['Host', 'shop.example.com']]);
    assert.equal(response.status, 504);
    assert.equal(JSON.parse(response.body).errors[0].code, 'GATEWAY_UPSTREAM_TIMEOUT');
  });

  it('serves health and metrics on the admin port only', async () => {
    const health = await fetch(`${gateway.adminUrl}/healthz`);
    assert.deepEqual([health.status, await health.json()], [200, { result: { status: 'ok' } }]);
    assert.match(await (await fetch(`${gateway.adminUrl}/metrics`)).text(), /tessera_gateway_requests_total\{status="200"\}/);
    await send(gateway.url, '/healthz', [['Host', 'unknown.test']]);
    assert.equal(fallback.requests[0]!.url, '/healthz', 'the proxy port forwards /healthz like any path');
  });
});

describe('Gateway without a matching route or a live upstream', () => {
  it('answers 404 with no rule and no default target, 502 when the upstream is down', async () => {
    const down = await startRecordingUpstream();
    await down.close();
    const config = readGatewayConfig({ port: 0, admin_port: 0, urls: [{ pattern: 'down.test/*', target: down.url }] }, fileKey);
    const gateway = await startGateway(config, [], silent);
    try {
      const none = await send(gateway.url, '/', [['Host', 'elsewhere.test']]);
      assert.deepEqual([none.status, JSON.parse(none.body).errors[0].code], [404, 'GATEWAY_NO_ROUTE']);
      const unreachable = await send(gateway.url, '/', [['Host', 'down.test']]);
      assert.deepEqual([unreachable.status, JSON.parse(unreachable.body).errors[0].code], [502, 'GATEWAY_UPSTREAM_UNREACHABLE']);
    } finally {
      await gateway.close();
    }
  });
});

describe('Gateway when a client hangs up or reads slowly', () => {
  const CHUNK = Buffer.alloc(64 * 1024, 'y');
  const CHUNKS = 128; // 8 MiB: far more than the socket buffers hold, so backpressure must work
  let upstreamUrl: string;
  let upstreamServer: Server;
  let gateway: RunningGateway;
  let finishedStreams = 0;
  let abortedStreams = 0;

  before(async () => {
    upstreamServer = createServer((request, response) => {
      const slow = request.url === '/slow';
      response.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(CHUNK.length * CHUNKS) });
      response.on('close', () => (response.writableFinished ? finishedStreams++ : abortedStreams++));
      let sent = 0;
      const pump = () => {
        while (sent < CHUNKS && !response.destroyed) {
          sent++;
          if (sent === CHUNKS) return void response.end(CHUNK);
          if (slow) return void setTimeout(() => response.write(CHUNK) && pump(), 10);
          if (!response.write(CHUNK)) return void response.once('drain', pump);
        }
      };
      pump();
    });
    await new Promise<void>((resolve) => upstreamServer.listen(0, '127.0.0.1', resolve));
    upstreamUrl = `http://127.0.0.1:${(upstreamServer.address() as { port: number }).port}`;
    gateway = await startGateway(readGatewayConfig({ port: 0, admin_port: 0, default_target: upstreamUrl }, fileKey), [], silent);
  });
  after(async () => {
    await gateway.close();
    upstreamServer.closeAllConnections();
    await new Promise((resolve) => upstreamServer.close(resolve));
  });

  it('delivers every byte to a client that pauses, without buffering the whole body', async () => {
    const bytes = await new Promise<number>((resolve, reject) => {
      rawRequest(`${gateway.url}/big`, (res) => {
        res.pause();
        let total = 0;
        setTimeout(
          () =>
            res
              .on('data', (c: Buffer) => (total += c.length))
              .on('end', () => resolve(total))
              .resume(),
          200,
        );
      })
        .on('error', reject)
        .end();
    });
    assert.equal(bytes, CHUNK.length * CHUNKS);
  });

  it('a client hanging up mid-body cuts the upstream exchange, and the gateway serves on', async () => {
    const before = abortedStreams;
    await new Promise<void>((resolve, reject) => {
      const req = rawRequest(`${gateway.url}/slow`, (res) =>
        res.once('data', () => {
          req.destroy();
          resolve();
        }),
      );
      req.on('error', (error) => ((error as NodeJS.ErrnoException).code === 'ECONNRESET' ? undefined : reject(error))).end();
    });
    await waitFor(() => abortedStreams > before);
    const next = await send(gateway.url, '/big', [['Host', 'x.test']]);
    assert.equal(next.status, 200);
    assert.equal(next.body.length, CHUNK.length * CHUNKS);
  });
});

describe('Gateway when a client hangs up before the upstream answers', () => {
  it('regression: the late upstream answer crashed the process (unhandled AbortError); now it is dropped', async () => {
    const upstream = await startRecordingUpstream();
    const gateway = await startGateway(readGatewayConfig({ port: 0, admin_port: 0, default_target: upstream.url }, fileKey), [], silent);
    try {
      upstream.delayMs = 150;
      await new Promise<void>((resolve) => {
        const req = rawRequest(`${gateway.url}/late`);
        req.on('error', () => resolve()).end();
        setTimeout(() => req.destroy(), 30);
      });
      await new Promise((resolve) => setTimeout(resolve, 300)); // the upstream answers into a closed response
      upstream.delayMs = 0;
      const next = await send(gateway.url, '/after', [['Host', 'x.test']]);
      assert.equal(next.status, 200);
      assert.deepEqual(
        upstream.requests.map((r) => r.url),
        ['/late', '/after'],
      );
    } finally {
      await gateway.close();
      await upstream.close();
    }
  });
});

async function waitFor(condition: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
