import { type ActorSource, svidSource } from './actor-sources.ts';
import type { TokenExchangeParams } from './schema.ts';

/** An SVID source that may hold a connection (the Workload API's channel) until closed. */
export type ClosableSource = ActorSource & { close?(): void };

/** The gate_svid actor's SVID source; undefined in the other modes. */
export async function openSvidSource(params: TokenExchangeParams): Promise<ClosableSource | undefined> {
  const actor = params.actor;
  if (actor.mode !== 'gate_svid' || actor.source !== 'workload_api') return svidSource(actor);
  // gRPC and protobuf are loaded only by a gateway that talks to a Workload API.
  const { WorkloadApiActor } = await import('./workload-api/workload-api-actor.ts');
  // The service checks an actor SVID's aud against its token endpoint, so that is the default ask.
  const asActor = actor.audience ?? `${params.serviceBaseUrl}/oauth2/tokens`;
  // As a client assertion the same SVID must also name the issuer (design §4), and nothing else.
  const asClient =
    params.client?.method === 'svid' ? [asActor.endsWith('/oauth2/tokens') ? asActor.slice(0, -'/oauth2/tokens'.length) : params.serviceBaseUrl] : [];
  return new WorkloadApiActor({ socket: actor.socket, audience: [asActor, ...asClient] });
}
