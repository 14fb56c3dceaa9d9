import { pino } from 'pino';
import { type GatewayConfig, readGatewayConfig } from '../gateway/config/gateway-config.ts';
import { launchGateway } from '../gateway/launch.ts';
import type { RunningGateway } from '../gateway/lifecycle.ts';
import { envKey } from '../gateway/settings/config-error.ts';
import type { RunningService } from '../service/service.ts';
import { traceFields } from '../telemetry/spans.ts';
import { adminApi } from './admin-api.ts';

const CLIENT_NAME = 'demo-gateway';

/**
 * The demo's gateway ports, read (and checked) before anything starts. Named by their
 * variables, since that is where the demo takes them from.
 */
export function demoGatewayPorts(env: Record<string, string | undefined>): Pick<GatewayConfig, 'port' | 'adminPort' | 'host' | 'keys'> {
  return readGatewayConfig({ port: env.GATEWAY_PORT ?? 8000, admin_port: env.GATEWAY_ADMIN_PORT ?? 8001 }, envKey);
}

/** Whether the service still accepts this client's secret (a client_credentials request). */
async function secretWorks(serviceUrl: string, client: { id: string; secret: string }): Promise<boolean> {
  const response = await fetch(`${serviceUrl}/oauth2/tokens`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`${encodeURIComponent(client.id)}:${encodeURIComponent(client.secret)}`).toString('base64')}`,
    },
    body: 'grant_type=client_credentials',
  });
  await response.body?.cancel();
  return response.ok;
}

/**
 * The demo's gateway client. It is created once; its secret is renewed only when the one kept
 * from an earlier start no longer works, so a demo that still runs keeps working.
 */
export async function prepareDemoDelegation(
  service: RunningService,
  orgId: string,
  apiKey: string,
  kept?: { id: string; secret: string },
): Promise<{ id: string; secret: string }> {
  const api = adminApi(service.url, orgId, apiKey);
  const existing = ((await api('GET', '/oauth2/clients?limit=100')) as { client_id: string; client_name: string }[]).find((c) => c.client_name === CLIENT_NAME);
  let client: { id: string; secret: string };
  if (existing && kept?.id === existing.client_id && (await secretWorks(service.url, kept))) client = kept;
  else if (existing)
    client = {
      id: existing.client_id,
      secret: ((await api('POST', `/oauth2/clients/${existing.client_id}/secret`)) as { client_secret: string }).client_secret,
    };
  else {
    const created = (await api('POST', '/oauth2/clients', {
      client_name: CLIENT_NAME,
      grant_types: ['client_credentials', 'urn:ietf:params:oauth:grant-type:token-exchange'],
      scopes: ['orders:read'],
    })) as { client_id: string; client_secret: string };
    client = { id: created.client_id, secret: created.client_secret };
  }
  return client;
}

/** One token-exchange plugin in oauth_client mode in front of the echo upstream. */
export async function startDemoGateway(
  env: Record<string, string | undefined>,
  serviceUrl: string,
  upstreamUrl: string,
  client: { id: string; secret: string },
): Promise<RunningGateway> {
  const config = readGatewayConfig(
    {
      port: env.GATEWAY_PORT ?? 8000,
      admin_port: env.GATEWAY_ADMIN_PORT ?? 8001,
      default_target: upstreamUrl,
      plugins: [
        {
          type: 'token-exchange',
          id: 'demo-exchange',
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
    envKey,
  );
  return launchGateway(config, pino({ level: env.GATEWAY_LOG_LEVEL ?? 'warn', mixin: traceFields }));
}
