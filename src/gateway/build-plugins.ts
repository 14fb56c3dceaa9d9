import type { GatewayConfig } from './config/gateway-config.ts';
import type { RequestPlugin } from './proxy/proxy-server.ts';
import { tokenExchangePlugin } from './token-exchange/token-exchange-plugin.ts';

/** One plugin instance per configured plugin, in execution order. */
export async function buildPlugins(config: GatewayConfig): Promise<RequestPlugin[]> {
  return Promise.all(config.plugins.map(async ({ id, enabled, params }) => {
    const actor = params.actor;
    if (actor.mode === 'gate_svid' && actor.source === 'workload_api') {
      // gRPC and protobuf are loaded only by a gateway that talks to a Workload API.
      const { WorkloadApiActor } = await import('./token-exchange/workload-api/workload-api-actor.ts');
      // The service checks the SVID's aud against its token endpoint, so that is the default ask.
      const workloadApi = new WorkloadApiActor({ socket: actor.socket, audience: actor.audience ?? `${params.serviceBaseUrl}/oauth2/tokens` });
      return tokenExchangePlugin(id, enabled, params, { workloadApi });
    }
    return tokenExchangePlugin(id, enabled, params);
  }));
}
