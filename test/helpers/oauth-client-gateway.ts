import { pino } from 'pino';
import { readGatewayConfig } from '../../src/gateway/config/gateway-config.ts';
import { type RunningGateway, startGateway } from '../../src/gateway/lifecycle.ts';
import { tokenExchangePlugin } from '../../src/gateway/plugins/token-exchange/handler.ts';
import { fileKey } from '../../src/gateway/settings/config-error.ts';
import type { ClientCredentials } from './oauth.ts';

/**
 * The real gateway on port 0 in front of `upstream`, with one token-exchange plugin in
 * `oauth_client` mode: the subject from Authorization, `client` as the actor, a JWT asked for.
 */
export async function startOAuthClientGateway(serviceUrl: string, upstream: string, client: ClientCredentials): Promise<RunningGateway> {
  const parameters = {
    service_base_url: serviceUrl,
    subject_header_with_token: 'Authorization',
    actor_mode: 'oauth_client',
    oauth_client_id: client.id,
    oauth_client_secret: client.secret,
    requested_token_type: 'urn:ietf:params:oauth:token-type:jwt',
  };
  const config = readGatewayConfig({ port: 0, admin_port: 0, default_target: upstream, plugins: [{ type: 'token-exchange', id: 'tx', parameters }] }, fileKey);
  const plugin = config.plugins[0]!;
  return startGateway(config, [tokenExchangePlugin(plugin.id, plugin.enabled, plugin.params)], pino({ level: 'silent' }));
}
