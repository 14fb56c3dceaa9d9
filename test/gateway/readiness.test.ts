import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { pino } from 'pino';
import { fileKey } from '../../src/gateway/config/config-error.ts';
import { readGatewayConfig } from '../../src/gateway/config/gateway-config.ts';
import { launchGateway } from '../../src/gateway/launch.ts';
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
