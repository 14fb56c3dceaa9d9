import type { Server } from 'node:http';
import type { Logger } from 'pino';
import { drainServer } from '../runtime/drain-server.ts';
import { addressBlockList, applyListenerPolicy } from '../runtime/listener-policy.ts';
import { createAdminServer } from './admin-server.ts';
import type { GatewayConfig } from './config/gateway-config.ts';
import type { RequestPlugin } from './plugins/plugin.ts';
import { createForwardAuthServer } from './proxy/forward-auth-server.ts';
import { GatewayMetrics } from './proxy/gateway-metrics.ts';
import { createPipeline } from './proxy/pipeline.ts';
import { createProxyServer } from './proxy/proxy-server.ts';
import { UpstreamPools } from './proxy/upstream-pools.ts';

export interface RunningGateway {
  url: string;
  adminUrl: string;
  /** The forward-auth port's URL, when forward_auth.port is set. */
  forwardAuthUrl?: string;
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
  const fa = config.forwardAuth;
  const checks = fa ? createForwardAuthServer(config, fa, createPipeline(config, plugins, log, true), log, () => state.closing) : undefined;
  // Only the proxy reaches a loopback forward-auth port, carrying every client's checks on its
  // connections: it is exempt from the per-address cap, as listed proxies are.
  if (checks && fa) applyListenerPolicy(checks, config.listener, fa.trustedProxyList.length > 0 ? fa.trustedProxies : addressBlockList(['127.0.0.0/8', '::1']));
  const listen = (s: Server, port: number, host = config.host) =>
    new Promise<number>((resolve, reject) => {
      s.once('error', reject).listen(port, host, () => resolve((s.address() as { port: number }).port));
    });
  const port = await listen(server, config.port);
  const adminPort = await listen(admin, config.adminPort).catch(async (error: unknown) => {
    server.close();
    throw error;
  });
  const checkPort =
    checks && fa
      ? await listen(checks, fa.port, fa.host).catch(async (error: unknown) => {
          server.close();
          admin.close();
          throw error;
        })
      : undefined;
  const bracket = (h: string) => (h.includes(':') ? `[${h}]` : h);
  const host = bracket(config.host);
  return {
    url: `http://${host}:${port}`,
    adminUrl: `http://${host}:${adminPort}`,
    ...(fa && checkPort !== undefined ? { forwardAuthUrl: `http://${bracket(fa.host)}:${checkPort}` } : {}),
    async close() {
      state.stopping = true;
      const { delayMs, timeoutMs } = config.shutdown;
      if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
      state.closing = true;
      const drained = await Promise.all(
        [server, ...(checks ? [checks] : [])].map((s) => drainServer(s, () => new Promise((resolve) => s.close(resolve)), timeoutMs)),
      );
      if (drained.includes(false)) log.warn(`requests still in flight after shutdown_timeout (${timeoutMs} ms) were cut`);
      admin.closeAllConnections();
      await new Promise((resolve) => admin.close(resolve));
      await pools.close();
      await Promise.all(plugins.map((p) => p.close?.()));
    },
  };
}
