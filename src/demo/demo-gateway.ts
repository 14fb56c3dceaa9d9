import { pino } from 'pino';
import { readGatewayConfig } from '../gateway/config/gateway-config.ts';
import { fileKey } from '../gateway/config/config-error.ts';
import { startGateway, type RunningGateway } from '../gateway/proxy/proxy-server.ts';
import { buildPlugins } from '../gateway/build-plugins.ts';
import type { RunningService } from '../service.ts';

const CLIENT_NAME = 'demo-gateway';

interface Api {
  (method: string, path: string, body?: unknown): Promise<any>;
}

/** The demo's gateway client (created once, its secret renewed on every start) and a person JWT. */
export async function prepareDemoDelegation(service: RunningService, orgId: string, apiKey: string, personId: string) {
  const api: Api = async (method, path, body) => {
    const response = await fetch(`${service.url}${path}`, {
      method, headers: { 'service-orgid': orgId, 'service-api-key': apiKey, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined,
    });
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
    return ((await response.json()) as { result: unknown }).result;
  };
  const existing = ((await api('GET', '/oauth2/clients?limit=100')) as { client_id: string; client_name: string }[]).find((c) => c.client_name === CLIENT_NAME);
  const client = existing
    ? { id: existing.client_id, secret: ((await api('POST', `/oauth2/clients/${existing.client_id}/secret`)) as { client_secret: string }).client_secret }
    : await api('POST', '/oauth2/clients', { client_name: CLIENT_NAME, grant_types: ['client_credentials', 'urn:ietf:params:oauth:grant-type:token-exchange'], scopes: ['orders:read'] })
        .then((c: { client_id: string; client_secret: string }) => ({ id: c.client_id, secret: c.client_secret }));
  const { token } = (await api('POST', `/persons/${personId}/mint-token`, { scope: 'orders:read', expires_in: 3600 })) as { token: string };
  return { client, personToken: token };
}

/** One token-exchange plugin in oauth_client mode in front of the echo upstream. */
export async function startDemoGateway(serviceUrl: string, upstreamUrl: string, client: { id: string; secret: string }): Promise<RunningGateway> {
  const config = readGatewayConfig({
    port: process.env.GATEWAY_PORT ?? 8000,
    admin_port: process.env.GATEWAY_ADMIN_PORT ?? 8001,
    default_target: upstreamUrl,
    plugins: [{
      type: 'token-exchange', id: 'demo-exchange',
      parameters: {
        service_base_url: serviceUrl, subject_header_with_token: 'Authorization', actor_mode: 'oauth_client',
        oauth_client_id: client.id, oauth_client_secret: client.secret, requested_token_type: 'urn:ietf:params:oauth:token-type:jwt',
      },
    }],
  }, fileKey);
  return startGateway(config, await buildPlugins(config), pino({ level: process.env.GATEWAY_LOG_LEVEL ?? 'warn' }));
}
