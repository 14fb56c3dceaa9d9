import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { pino } from 'pino';
import { buildPlugins } from '../../src/gateway/build-plugins.ts';
import { readGatewayConfig } from '../../src/gateway/config/gateway-config.ts';
import { launchGateway } from '../../src/gateway/launch.ts';
import { startGateway } from '../../src/gateway/lifecycle.ts';
import { fileKey } from '../../src/gateway/settings/config-error.ts';
import { FakeAgent } from '../helpers/workload-agent.ts';

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const shortLivedSvid = (lifeMs: number) =>
  `${b64({ alg: 'ES256', typ: 'JWT' })}.${b64({ sub: 'spiffe://example.org/gateway', exp: Math.floor((Date.now() + lifeMs) / 1000) })}.c2ln`;

async function readiness(adminUrl: string) {
  const response = await fetch(`${adminUrl}/readyz`);
  return { status: response.status, body: (await response.json()) as { result: { status: string; reasons?: string[] } } };
}

async function until<T>(probe: () => Promise<T>, done: (value: T) => boolean, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let value = await probe();
  while (!done(value) && Date.now() < deadline) {
    await sleep(100);
    value = await probe();
  }
  return value;
}

describe('Gateway /readyz follows its SVID source', () => {
  it('turns 503, naming the plugin, once the Workload API stops answering and the SVID in hand has expired; ready again when it is back', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tessera-ready-'));
    const socket = join(dir, 'agent.sock');
    const config = readGatewayConfig(
      {
        port: 0,
        admin_port: 0,
        plugins: [
          {
            type: 'token-exchange',
            id: 'orders',
            parameters: {
              service_base_url: 'http://127.0.0.1:9',
              subject_header_with_token: 'Authorization',
              actor_mode: 'gate_svid',
              actor_svid_source: 'workload_api',
              actor_workload_api_socket: `unix://${socket}`,
              requested_token_type: 'urn:ietf:params:oauth:token-type:jwt',
            },
          },
        ],
      },
      fileKey,
    );
    let agent = new FakeAgent(socket);
    agent.respond = () => ({ svids: [{ spiffe_id: 'spiffe://example.org/gateway', svid: shortLivedSvid(2_000), hint: '' }] });
    await agent.start();
    const gateway = await launchGateway(config, pino({ level: 'silent' })).catch((error: unknown) => {
      agent.stop();
      throw error;
    });
    try {
      assert.deepEqual(await readiness(gateway.adminUrl), { status: 200, body: { result: { status: 'ready' } } });

      agent.stop();
      const down = await until(
        () => readiness(gateway.adminUrl),
        (r) => r.status === 503,
        6_000,
      );
      assert.equal(down.status, 503);
      assert.equal(down.body.result.status, 'not_ready');
      assert.match(down.body.result.reasons![0]!, /^plugin "orders": the SPIFFE Workload API/);

      agent = new FakeAgent(socket);
      agent.respond = () => ({ svids: [{ spiffe_id: 'spiffe://example.org/gateway', svid: shortLivedSvid(60_000), hint: '' }] });
      await agent.start();
      const up = await until(
        () => readiness(gateway.adminUrl),
        (r) => r.status === 200,
        10_000,
      );
      assert.deepEqual(up, { status: 200, body: { result: { status: 'ready' } } });
    } finally {
      await gateway.close();
      agent.stop();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('Gateway /readyz asks only the plugins in use, and within a bound', () => {
  const svidFromNowhere = (enabled: boolean) => ({
    type: 'token-exchange',
    id: 'orders',
    enabled,
    parameters: {
      service_base_url: 'http://127.0.0.1:9',
      subject_header_with_token: 'Authorization',
      actor_mode: 'gate_svid',
      actor_svid_source: 'file',
      actor_svid_file_path: '/nonexistent/svid.jwt',
      requested_token_type: 'urn:ietf:params:oauth:token-type:jwt',
    },
  });
  const gatewayOf = async (tree: Record<string, unknown>) => {
    const config = readGatewayConfig({ port: 0, admin_port: 0, ...tree }, fileKey);
    return startGateway(config, await buildPlugins(config), pino({ level: 'silent' }));
  };

  it('ignores a broken source of a plugin that is off and turned on by no URL rule; counts it once a rule turns it on', async () => {
    const unused = await gatewayOf({ plugins: [svidFromNowhere(false)] });
    try {
      assert.equal((await readiness(unused.adminUrl)).status, 200);
    } finally {
      await unused.close();
    }
    const used = await gatewayOf({
      plugins: [svidFromNowhere(false)],
      urls: [{ pattern: '*/api/*', target: 'http://127.0.0.1:9', plugins: { orders: { enabled: true } } }],
    });
    try {
      const answer = await readiness(used.adminUrl);
      assert.equal(answer.status, 503);
      assert.match(answer.body.result.reasons![0]!, /^plugin "orders": the SVID file cannot be read/);
    } finally {
      await used.close();
    }
  });

  it('answers within 2 s when the token endpoint takes the client_credentials request and never answers', async () => {
    const silent = createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const gateway = await gatewayOf({
      plugins: [
        {
          type: 'token-exchange',
          id: 'orders',
          parameters: {
            service_base_url: `http://127.0.0.1:${(silent.address() as { port: number }).port}`,
            subject_header_with_token: 'Authorization',
            actor_mode: 'oauth_client',
            oauth_client_id: 'cli_gateway',
            oauth_client_secret: 'tcs_secret',
            upstream_request_timeout: '30s',
            requested_token_type: 'urn:ietf:params:oauth:token-type:jwt',
          },
        },
      ],
    });
    try {
      const started = Date.now();
      const answer = await readiness(gateway.adminUrl);
      assert.ok(Date.now() - started < 3_000, `answered after ${Date.now() - started} ms`);
      assert.equal(answer.status, 503);
      assert.match(answer.body.result.reasons![0]!, /^plugin "orders": its actor source did not answer within 2 s/);
    } finally {
      await gateway.close();
      silent.closeAllConnections();
      silent.close();
    }
  });
});
