import { createServer, type Server, type ServerResponse } from 'node:http';
import type { GatewayConfig } from './config/gateway-config.ts';
import type { RequestPlugin } from './plugins/plugin.ts';
import type { GatewayMetrics } from './proxy/gateway-metrics.ts';
import { GatewayError, gatewayErrorBody } from './request/gateway-error.ts';

/**
 * Stopping (on SIGTERM): /readyz fails so load balancers move away, requests are still proxied.
 * Closing (shutdown_delay later): the ports stop accepting and new requests are refused.
 */
export interface ShutdownState {
  readonly stopping: boolean;
  readonly closing: boolean;
}

export interface AdminParts {
  metrics: GatewayMetrics;
  state: ShutdownState;
  /** What `/readyz` reports besides the plugins' own checks (the start-up check of their clients). */
  readiness: (() => { ready: boolean; reasons: string[] }) | undefined;
}

/** Health, readiness and metrics, on a port of their own: monitoring never competes with proxied traffic. */
export function createAdminServer(config: GatewayConfig, plugins: readonly RequestPlugin[], { metrics, state, readiness }: AdminParts): Server {
  const check = async () => {
    const startup = readiness?.() ?? { ready: true, reasons: [] };
    // A plugin whose client the start-up check still waits for would only repeat its reason.
    if (!startup.ready) return startup;
    // A plugin off by default and turned on by no URL rule does no work: its source does not count.
    const inUse = plugins.filter((plugin) => plugin.enabled || config.urls.some((rule) => rule.plugins[plugin.id] === true));
    const reasons = (await Promise.all(inUse.map((plugin) => plugin.unready?.()))).filter((reason) => reason !== undefined);
    return { ready: reasons.length === 0, reasons };
  };
  // Liveness (/healthz) says the process works; readiness says it can do its job now.
  const answerReadiness = async (response: ServerResponse) => {
    const { ready, reasons } = state.stopping ? { ready: false, reasons: ['the gateway is shutting down'] } : await check();
    const result = ready ? { status: 'ready' } : { status: state.stopping ? 'stopping' : 'not_ready', reasons };
    response.writeHead(ready ? 200 : 503, { 'content-type': 'application/json' }).end(JSON.stringify({ result }));
  };
  return createServer((request, response) => {
    if (request.url === '/readyz') return void answerReadiness(response);
    if (request.url === '/healthz')
      return void response
        .writeHead(state.closing ? 503 : 200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ result: { status: state.closing ? 'stopping' : 'ok' } }));
    if (request.url === '/metrics') return void metrics.render().then((text) => response.writeHead(200, { 'content-type': metrics.contentType }).end(text));
    response
      .writeHead(404, { 'content-type': 'application/json' })
      .end(gatewayErrorBody(new GatewayError('GATEWAY_NO_ROUTE', 'the admin port serves /healthz, /readyz and /metrics')));
  });
}
