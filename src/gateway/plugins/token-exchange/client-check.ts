import { GatewayConfigError } from '../../settings/config-error.ts';
import type { PluginConfig, StartupOutcome } from '../plugin.ts';
import { postTokenRequest } from './exchange-client.ts';
import type { TokenExchangeParams } from './schema.ts';

/** The settings a refused client's message tells the operator to check. */
export interface ClientKeys {
  clientId: string;
  clientSecret: string;
}

type TokenExchangeConfig = PluginConfig<string, TokenExchangeParams, ClientKeys>;

/** A refusal that proves the credentials wrong; the other codes say the service is not there yet. */
const REFUSED_CLIENT = new Set(['GATEWAY_CLIENT_REFUSED', 'GATEWAY_ACTOR_UNAVAILABLE']);
const UNREACHABLE = new Set([
  'GATEWAY_TOKEN_ENDPOINT_UNREACHABLE',
  'GATEWAY_TOKEN_ENDPOINT_TIMEOUT',
  'GATEWAY_TOKEN_ENDPOINT_FAILED',
  'GATEWAY_TOKEN_ENDPOINT_MALFORMED',
]);

/**
 * Asks for one client_credentials token. A 4xx other than invalid_client (say the client may
 * not use client_credentials) still proves the credentials right, except in oauth_client mode,
 * where that token is the actor of every exchange and so could never be had.
 */
export async function askForClientToken(plugin: TokenExchangeConfig, client: { id: string; secret: string }): Promise<StartupOutcome> {
  const { params } = plugin;
  try {
    await postTokenRequest(
      `${params.serviceBaseUrl}/oauth2/tokens`,
      new URLSearchParams({ grant_type: 'client_credentials' }),
      client,
      params.timeoutMs,
      `plugin "${plugin.id}": the start-up check of its client`,
    );
    return { kind: 'ok' };
  } catch (error) {
    const code = (error as { code?: string }).code ?? '';
    if (UNREACHABLE.has(code)) return { kind: 'unreachable', reason: `plugin "${plugin.id}": ${(error as Error).message}` };
    if (REFUSED_CLIENT.has(code) || params.actor.mode === 'oauth_client') return { kind: 'refused', error: refusedError(plugin, error as Error) };
    return { kind: 'ok' };
  }
}

function refusedError(plugin: TokenExchangeConfig, error: Error): GatewayConfigError {
  const cause = (error.cause as Error | undefined)?.message ?? error.message;
  return new GatewayConfigError(
    plugin.keys.clientSecret,
    `plugin "${plugin.id}": ${plugin.params.serviceBaseUrl}/oauth2/tokens refused its client_credentials request (${cause}); check ${plugin.keys.clientId} and ${plugin.keys.clientSecret}`,
  );
}
