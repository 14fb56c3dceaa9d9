import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import { pino } from 'pino';
import { loadServiceConfig } from '../../src/config/service-config.ts';
import { readGatewayConfig } from '../../src/gateway/config/gateway-config.ts';
import { launchGateway } from '../../src/gateway/launch.ts';
import { fileKey, GatewayConfigError } from '../../src/gateway/settings/config-error.ts';
import { gatewayStartupWarnings } from '../../src/gateway/startup-warnings.ts';
import { createOrganization } from '../../src/organizations/create-organization.ts';
import { startService } from '../../src/service/service.ts';
import { backends } from '../helpers/backends.ts';
import { closedPortUrl, registerClient } from '../helpers/oauth.ts';
import { startTestService } from '../helpers/service.ts';

const silent = pino({ level: 'silent' });

function oauthClientGateway(serviceUrl: string, client: { id: string; secret: string }) {
  return readGatewayConfig(
    {
      port: 0,
      admin_port: 0,
      default_target: 'http://127.0.0.1:9',
      plugins: [
        {
          type: 'token-exchange',
          id: 'orders',
          parameters: {
            service_base_url: serviceUrl,
            subject_header_with_token: 'Authorization',
            actor_mode: 'oauth_client',
            oauth_client_id: client.id,
            oauth_client_secret: client.secret,
            requested_token_type: 'urn:ietf:params:oauth:token-type:jwt',
          },
        },
      ],
    },
    fileKey,
  );
}

async function readiness(adminUrl: string): Promise<{ status: number; body: any }> {
  const response = await fetch(`${adminUrl}/readyz`);
  return { status: response.status, body: await response.json() };
}

describe('Gateway start-up', () => {
  const sqlite = backends()[0]!;

  it("stops start-up when the service refuses a plugin's client, naming the plugin and the keys", async () => {
    const t = await startTestService(sqlite);
    try {
      const client = await registerClient(t, await t.org());
      await assert.rejects(launchGateway(oauthClientGateway(t.url, { id: client.id, secret: 'tcs_wrong' }), silent), (error: unknown) => {
        assert.ok(error instanceof GatewayConfigError, String(error));
        assert.match(
          error.message,
          /^plugins\[0\]\.parameters\.oauth_client_secret: plugin "orders": .*refused its client_credentials request \(401 invalid_client/,
        );
        assert.match(error.message, /check plugins\[0\]\.parameters\.oauth_client_id and plugins\[0\]\.parameters\.oauth_client_secret$/);
        assert.ok(!error.message.includes('tcs_wrong'), 'the secret is not in the message');
        return true;
      });
      const gateway = await launchGateway(oauthClientGateway(t.url, client), silent);
      try {
        assert.deepEqual(await readiness(gateway.adminUrl), { status: 200, body: { result: { status: 'ready' } } });
      } finally {
        await gateway.close();
      }
    } finally {
      await t.close();
    }
  });

  it('starts not ready while the service is unreachable, and becomes ready once it answers', async () => {
    // The client is registered in a database file by a first service, which then stops; a
    // second service on the port the gateway asks opens the same file later.
    const dir = mkdtempSync(join(tmpdir(), 'tessera-readyz-'));
    const env = { TESSERA_DATABASE: `sqlite:${join(dir, 'tessera.db')}`, TESSERA_DEV: '1', TESSERA_LOG_LEVEL: 'silent' };
    try {
      const first = await startService(loadServiceConfig({ ...env, TESSERA_PORT: '0' }).config);
      const { org, apiKey } = await createOrganization(first.store, 'readiness');
      const registered = await fetch(`${first.url}/oauth2/clients`, {
        method: 'POST',
        headers: { 'service-orgid': org.id, 'service-api-key': apiKey, 'content-type': 'application/json' },
        body: JSON.stringify({ client_name: 'gateway', grant_types: ['client_credentials'], scopes: [] }),
      }).then((r) => r.json() as Promise<{ result: { client_id: string; client_secret: string } }>);
      await first.close();

      const serviceUrl = await closedPortUrl('');
      const lines: string[] = [];
      const log = pino(
        { level: 'warn' },
        new Writable({
          write(chunk, _e, done) {
            lines.push(String(chunk));
            done();
          },
        }),
      );
      const gateway = await launchGateway(oauthClientGateway(serviceUrl, { id: registered.result.client_id, secret: registered.result.client_secret }), log);
      try {
        const before = await readiness(gateway.adminUrl);
        assert.equal(before.status, 503);
        assert.equal(before.body.result.status, 'not_ready');
        assert.match(before.body.result.reasons[0], /^plugin "orders": .*could not be reached/);
        assert.match(lines.join(''), /starting not ready/);
        assert.equal((await fetch(`${gateway.adminUrl}/healthz`)).status, 200, 'liveness is not readiness');

        const second = await startService(loadServiceConfig({ ...env, TESSERA_PORT: new URL(serviceUrl).port }).config);
        try {
          let after = await readiness(gateway.adminUrl);
          for (let waited = 0; after.status !== 200 && waited < 10_000; waited += 200) {
            await new Promise((resolve) => setTimeout(resolve, 200));
            after = await readiness(gateway.adminUrl);
          }
          assert.deepEqual(after, { status: 200, body: { result: { status: 'ready' } } });
        } finally {
          await second.close();
        }
      } finally {
        await gateway.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('warns about a gateway with no route and no plugin, saying what it will do', () => {
    const config = readGatewayConfig({ port: 0, admin_port: 0 }, fileKey);
    const warnings = gatewayStartupWarnings(config);
    assert.match(warnings[0]!, /no URL rule .* and no default target .*: every request will be answered 404 GATEWAY_NO_ROUTE/);
    assert.match(warnings[1]!, /no plugins .*: requests are proxied without exchanging tokens/);
    assert.deepEqual(gatewayStartupWarnings(oauthClientGateway('http://127.0.0.1:1', { id: 'a', secret: 'b' })), []);
  });
});
