import type { PluginConfig } from '../../config/gateway-config.ts';
import type { RequestPlugin } from '../../proxy/proxy-server.ts';
import { tokenExchangePlugin } from './handler.ts';

/** A token-exchange plugin from its configuration entry. */
export async function buildTokenExchangePlugin({ id, enabled, params }: PluginConfig): Promise<RequestPlugin> {
  const actor = params.actor;
  if (actor.mode === 'gate_svid' && actor.source === 'workload_api') {
    // gRPC and protobuf are loaded only by a gateway that talks to a Workload API.
    const { WorkloadApiActor } = await import('./workload-api/workload-api-actor.ts');
    // The service checks the SVID's aud against its token endpoint, so that is the default ask.
    const workloadApi = new WorkloadApiActor({ socket: actor.socket, audience: actor.audience ?? `${params.serviceBaseUrl}/oauth2/tokens` });
    return tokenExchangePlugin(id, enabled, params, { workloadApi });
  }
  return tokenExchangePlugin(id, enabled, params);
}
