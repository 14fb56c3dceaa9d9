import { GatewayConfigError } from '../../settings/config-error.ts';
import type { PluginConfig, StartupOutcome } from '../plugin.ts';
import { type ClientAuthentication, clientAuthenticationOf, svidAuthentication } from './client-authentication.ts';
import { ClientKeyFileError } from './client-key-file.ts';
import { postTokenRequest } from './exchange-client.ts';
import type { TokenExchangeParams } from './schema.ts';
import { openSvidSource } from './svid-source.ts';

/** The settings a refused client's message tells the operator to check. */
export interface ClientKeys {
  clientId: string;
  clientSecret: string;
  clientKeyFile: string;
  clientAuth: string;
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
 * The start-up check of a plugin's client, with an authentication of its own: the key file
 * read afresh, or an SVID source opened for the check and closed after it. An SVID that is
 * not there yet (the agent still starting) is a service not ready, not a refused client.
 */
export async function checkPluginClient(plugin: TokenExchangeConfig): Promise<StartupOutcome> {
  const { params, keys } = plugin;
  if (params.client?.method !== 'svid') {
    let client: ClientAuthentication | undefined;
    try {
      client = clientAuthenticationOf(params);
    } catch (error) {
      if (error instanceof ClientKeyFileError) return { kind: 'refused', error: new GatewayConfigError(keys.clientKeyFile, error.message) };
      throw error;
    }
    return client ? askForClientToken(plugin, client) : { kind: 'ok' };
  }
  const svids = (await openSvidSource(params))!;
  try {
    await svids.actor();
  } catch (error) {
    svids.close?.();
    return { kind: 'unreachable', reason: `plugin "${plugin.id}": ${(error as Error).message}` };
  }
  try {
    return await askForClientToken(plugin, svidAuthentication(params.client.id, svids));
  } finally {
    svids.close?.();
  }
}

/**
 * Asks for one client_credentials token. A 4xx other than invalid_client (say the client may
 * not use client_credentials) still proves the credentials right, except in oauth_client mode,
 * where that token is the actor of every exchange and so could never be had.
 */
async function askForClientToken(plugin: TokenExchangeConfig, client: ClientAuthentication): Promise<StartupOutcome> {
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

/** Named by the setting that holds the credential; the message says which others to check with it. */
function refusedError(plugin: TokenExchangeConfig, error: Error): GatewayConfigError {
  const cause = (error.cause as Error | undefined)?.message ?? error.message;
  const { keys } = plugin;
  const method = plugin.params.client?.method;
  const [credential, registered] =
    method === 'private_key_jwt'
      ? [keys.clientKeyFile, ' (and the public key registered for the client)']
      : method === 'svid'
        ? [keys.clientAuth, ' (and the SPIFFE ID registered for the client)']
        : [keys.clientSecret, ''];
  return new GatewayConfigError(
    credential,
    `plugin "${plugin.id}": ${plugin.params.serviceBaseUrl}/oauth2/tokens refused its client_credentials request (${cause}); check ${keys.clientId} and ${credential}${registered}`,
  );
}
