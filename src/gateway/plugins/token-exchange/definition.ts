import type { PluginDefinition } from '../plugin.ts';
import { askForClientToken, type ClientKeys } from './client-check.ts';
import { tokenExchangePlugin } from './handler.ts';
import { FIELD_NAMES, readTokenExchangeParams, type TokenExchangeParams } from './schema.ts';

/** Spec §1: swaps the caller's token for a delegated one (RFC 8693) before the request goes on. */
export const tokenExchange: PluginDefinition<'token-exchange', TokenExchangeParams, ClientKeys> = {
  type: 'token-exchange',
  fields: FIELD_NAMES,
  parse: readTokenExchangeParams,
  keys: (parameter) => ({ clientId: parameter('oauth_client_id'), clientSecret: parameter('oauth_client_secret') }),
  readsVariables: ({ actor }) => (actor.mode === 'gate_svid' && actor.source === 'env' ? [actor.envVar] : []),
  // A wrong secret stops start-up instead of failing the first proxied request.
  startupCheck: (plugin) => {
    const client = plugin.params.client;
    return client === undefined ? undefined : () => askForClientToken(plugin, client);
  },
  async build({ id, enabled, params }) {
    const actor = params.actor;
    if (actor.mode === 'gate_svid' && actor.source === 'workload_api') {
      // gRPC and protobuf are loaded only by a gateway that talks to a Workload API.
      const { WorkloadApiActor } = await import('./workload-api/workload-api-actor.ts');
      // The service checks the SVID's aud against its token endpoint, so that is the default ask.
      const workloadApi = new WorkloadApiActor({ socket: actor.socket, audience: actor.audience ?? `${params.serviceBaseUrl}/oauth2/tokens` });
      return tokenExchangePlugin(id, enabled, params, { workloadApi });
    }
    return tokenExchangePlugin(id, enabled, params);
  },
};
