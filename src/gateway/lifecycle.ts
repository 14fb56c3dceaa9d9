import type { Server } from 'node:http';
import type { Logger } from 'pino';
import { drainServer } from '../runtime/drain-server.ts';
import { applyListenerPolicy } from '../runtime/listener-policy.ts';
import { createAdminServer } from './admin-server.ts';
import type { GatewayConfig } from './config/gateway-config.ts';
import type { RequestPlugin } from './plugins/plugin.ts';
import { GatewayMetrics } from './proxy/gateway-metrics.ts';
import { createProxyServer } from './proxy/proxy-server.ts';
import { UpstreamPools } from './proxy/upstream-pools.ts';

export interface RunningGateway {
  url: string;
  adminUrl: string;
  close(): Promise<void>;
}

export interface GatewayOptions {
  /** What `/readyz` reports besides the plugins' own checks (the start-up check of their clients). */
  readiness?: () => { ready: boolean; reasons: string[] };
}

/**
 * The reverse proxy and its admin server (health, readiness, metrics) on a port of their own,
 * listening; `close` is the shutdown: readiness off, shutdown_delay, drain for shutdown_timeout,
 * then the admin port, the upstream connections and the plugins.
 */
export async function startGateway(
  config: GatewayConfig,
  plugins: readonly RequestPlugin[],
  log: Logger,
  options: GatewayOptions = {},
): Promise<RunningGateway> {
  const pools = new UpstreamPools(config.upstreamTimeoutMs);
  const metrics = new GatewayMetrics();
  const state = { stopping: false, closing: false };
  const server = createProxyServer(config, plugins, log, { pools, metrics, closing: () => state.closing });
  const admin = createAdminServer(config, plugins, { metrics, state, readiness: options.readiness });
  // Late headers and requests are answered 408 by answerClientError; the admin port, which
  // monitoring reaches, is held to the same bounds as the proxy port.
  applyListenerPolicy(server, config.listener, config.requests.trustedProxies);
  applyListenerPolicy(admin, config.listener, config.requests.trustedProxies);
  const listen = (s: Server, port: number) =>
    new Promise<number>((resolve, reject) => {
      s.once('error', reject).listen(port, config.host, () => resolve((s.address() as { port: number }).port));
    });
  const port = await listen(server, config.port);
  const adminPort = await listen(admin, config.adminPort).catch(async (error: unknown) => {
    server.close();
    throw error;
  });
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  return {
    url: `http://${host}:${port}`,
    adminUrl: `http://${host}:${adminPort}`,
    async close() {
      state.stopping = true;
      const { delayMs, timeoutMs } = config.shutdown;
      if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
      state.closing = true;
      if (!(await drainServer(server, () => new Promise((resolve) => server.close(resolve)), timeoutMs)))
        log.warn(`requests still in flight after shutdown_timeout (${timeoutMs} ms) were cut`);
      admin.closeAllConnections();
      await new Promise((resolve) => admin.close(resolve));
      await pools.close();
      await Promise.all(plugins.map((p) => p.close?.()));
    },
  };
}
