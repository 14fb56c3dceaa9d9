import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { Pool } from 'undici';
import { drainServer } from '../../runtime/drain-server.ts';
import { applyListenerPolicy } from '../../runtime/listener-policy.ts';
import type { GatewayConfig } from '../config/gateway-config.ts';
import type { RequestPlugin } from '../plugins/plugin.ts';
import { GatewayError, gatewayErrorBody } from '../request/gateway-error.ts';
import { forwardableHeaders } from '../request/headers.ts';
import { readInbound } from '../request/inbound.ts';
import { Router } from '../request/routing.ts';
import { answerClientError, refuseConnect } from './client-errors.ts';
import { forward } from './forward.ts';
import { setForwardingHeaders } from './forwarding.ts';
import { GatewayMetrics } from './gateway-metrics.ts';
import { requestIdOf } from './request-id.ts';

export interface RunningGateway {
  url: string;
  adminUrl: string;
  close(): Promise<void>;
}

export interface GatewayOptions {
  /** What `/readyz` reports besides the plugins' own checks (the start-up check of their clients). */
  readiness?: () => { ready: boolean; reasons: string[] };
}

/** The reverse proxy and its admin server (health, readiness, metrics) on a port of their own. */
export async function startGateway(
  config: GatewayConfig,
  plugins: readonly RequestPlugin[],
  log: Logger,
  options: GatewayOptions = {},
): Promise<RunningGateway> {
  const router = new Router(config.urls, config.defaultTarget);
  const pools = new Map<string, Pool>();
  const metrics = new GatewayMetrics();
  // Stopping: /readyz fails so load balancers move away, requests are still proxied.
  // Closing (shutdown_delay later): the ports stop accepting and new requests are refused.
  let stopping = false;
  let closing = false;
  const pool = (origin: string) => {
    let existing = pools.get(origin);
    if (!existing) {
      // An upstream that does not accept the connection in upstream_timeout is unreachable (502).
      existing = new Pool(origin, {
        connections: 256,
        keepAliveTimeout: 30_000,
        connect: { timeout: config.upstreamTimeoutMs },
        headersTimeout: config.upstreamTimeoutMs,
        bodyTimeout: config.upstreamTimeoutMs,
      });
      pools.set(origin, existing);
    }
    return existing;
  };

  async function handle(request: IncomingMessage, response: ServerResponse, requestId: string): Promise<number> {
    if (closing)
      throw new GatewayError('GATEWAY_SHUTTING_DOWN', 'the gateway is shutting down; retry', { headers: { connection: 'close', 'retry-after': '1' } });
    const inbound = readInbound(request, config.requests);
    const match = router.route(inbound.host, inbound.target.path, inbound.defaultPort);
    if (!match) throw new GatewayError('GATEWAY_NO_ROUTE', 'no URL rule matches this host and path, and no default target is set');
    const { route, foldedRule } = match;
    const headers = forwardableHeaders(request.headers);
    for (const plugin of plugins) {
      const enabled = (route.rule?.plugins[plugin.id] ?? plugin.enabled) || (foldedRule?.plugins[plugin.id] ?? plugin.enabled);
      if (enabled) await plugin.run({ request, inbound, headers, route });
    }
    setForwardingHeaders(headers, request, { host: inbound.hostText, trustedProxies: config.requests.trustedProxies });
    // After the plugins, so the upstream always sees the id the caller's answer and our log carry.
    headers['x-request-id'] = requestId;
    const path = `${route.basePath}${inbound.target.path}${inbound.target.query}`;
    const outcome = await forward(request, response, {
      dispatcher: pool(route.origin),
      method: request.method ?? 'GET',
      path,
      headers,
      maxBodyBytes: config.requests.maxBodyBytes,
      bodyTimeoutMs: config.requests.bodyTimeoutMs,
    });
    if (!outcome.delivered)
      log.debug({ requestId, status: outcome.status, path: request.url?.split('?')[0] }, 'response cut short: the client went away or the upstream broke off');
    return outcome.status;
  }

  const server = createServer(
    {
      // readInbound refuses a missing Host itself: Node's own 400 has no envelope and no X-Request-Id.
      requireHostHeader: false,
    },
    (request, response) => {
      const started = performance.now();
      const requestId = requestIdOf(request);
      // Set before anything is written: an upstream's answer keeps it unless it sends its own.
      response.setHeader('x-request-id', requestId);
      handle(request, response, requestId).then(
        (status) => metrics.observe(status, started),
        (error: unknown) => {
          const known =
            error instanceof GatewayError
              ? error
              : new GatewayError('GATEWAY_INTERNAL_ERROR', 'an unexpected error occurred; it has been logged', { cause: error });
          log[known.status >= 500 ? 'warn' : 'info'](
            { requestId, code: known.code, cause: (known.cause as Error | undefined)?.message, method: request.method, path: request.url?.split('?')[0] },
            known.message,
          );
          request.resume(); // drain what the client still sends, so the connection stays usable
          if (!response.headersSent)
            response.writeHead(known.status, { ...known.headers, 'content-type': 'application/json; charset=utf-8' }).end(gatewayErrorBody(known));
          else response.destroy();
          metrics.observe(known.status, started);
        },
      );
    },
  );
  server.maxHeadersCount = config.requests.maxHeaders;
  server.on('clientError', answerClientError);
  server.on('connect', refuseConnect);
  // RFC 9110 §10.1.1 lets a server ignore an expectation it does not know; Node's own 417 has no envelope.
  server.on('checkExpectation', (request, response) => server.emit('request', request, response));
  const admin = createServer((request, response) => {
    if (request.url === '/readyz') return void answerReadiness(response);
    if (request.url === '/healthz')
      return void response
        .writeHead(closing ? 503 : 200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ result: { status: closing ? 'stopping' : 'ok' } }));
    if (request.url === '/metrics') return void metrics.render().then((text) => response.writeHead(200, { 'content-type': metrics.contentType }).end(text));
    response
      .writeHead(404, { 'content-type': 'application/json' })
      .end(gatewayErrorBody(new GatewayError('GATEWAY_NO_ROUTE', 'the admin port serves /healthz, /readyz and /metrics')));
  });
  // Liveness (/healthz) says the process works; readiness says it can do its job now.
  const answerReadiness = async (response: ServerResponse) => {
    const { ready, reasons } = stopping ? { ready: false, reasons: ['the gateway is shutting down'] } : await readiness();
    const result = ready ? { status: 'ready' } : { status: stopping ? 'stopping' : 'not_ready', reasons };
    response.writeHead(ready ? 200 : 503, { 'content-type': 'application/json' }).end(JSON.stringify({ result }));
  };
  const readiness = async () => {
    const startup = options.readiness?.() ?? { ready: true, reasons: [] };
    // A plugin whose client the start-up check still waits for would only repeat its reason.
    if (!startup.ready) return startup;
    // A plugin off by default and turned on by no URL rule does no work: its source does not count.
    const inUse = plugins.filter((plugin) => plugin.enabled || config.urls.some((rule) => rule.plugins[plugin.id] === true));
    const reasons = (await Promise.all(inUse.map((plugin) => plugin.unready?.()))).filter((reason) => reason !== undefined);
    return { ready: reasons.length === 0, reasons };
  };
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
      stopping = true;
      const { delayMs, timeoutMs } = config.shutdown;
      if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
      closing = true;
      if (!(await drainServer(server, () => new Promise((resolve) => server.close(resolve)), timeoutMs)))
        log.warn(`requests still in flight after shutdown_timeout (${timeoutMs} ms) were cut`);
      admin.closeAllConnections();
      await new Promise((resolve) => admin.close(resolve));
      await Promise.all([...pools.values()].map((p) => p.close()));
      await Promise.all(plugins.map((p) => p.close?.()));
    },
  };
}
