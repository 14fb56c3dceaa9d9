import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { tracedRequests } from '../../telemetry/server-spans.ts';
import { injectTraceContext, inSpan, SpanKind, serverOf, tracingOn } from '../../telemetry/spans.ts';
import type { GatewayConfig } from '../config/gateway-config.ts';
import type { RequestPlugin } from '../plugins/plugin.ts';
import { GatewayError } from '../request/gateway-error.ts';
import { readInbound } from '../request/inbound.ts';
import { answerGatewayError } from './answer-error.ts';
import { answerClientError, refuseConnect } from './client-errors.ts';
import { type ForwardOutcome, type ForwardTarget, forward } from './forward.ts';
import { setForwardingHeaders } from './forwarding.ts';
import type { GatewayMetrics } from './gateway-metrics.ts';
import { createPipeline } from './pipeline.ts';
import { requestIdOf } from './request-id.ts';
import type { UpstreamPools } from './upstream-pools.ts';

export interface ProxyParts {
  pools: UpstreamPools;
  metrics: GatewayMetrics;
  /** True once the port stops accepting (shutdown_delay after SIGTERM): new requests are refused. */
  closing: () => boolean;
}

/**
 * forward() in a client span whose context the upstream gets as its `traceparent`, written over
 * whatever the caller sent, so the upstream's spans are the gateway's children.
 */
function forwardInSpan(request: IncomingMessage, response: ServerResponse, target: ForwardTarget, origin: string): Promise<ForwardOutcome> {
  return inSpan(
    `${target.method} upstream`,
    serverOf(origin),
    async (span) => {
      injectTraceContext(target.headers);
      const sent = await forward(request, response, target);
      span?.setAttribute('http.response.status_code', sent.status);
      return sent;
    },
    SpanKind.CLIENT,
  );
}

/**
 * The reverse proxy's server: per request, decide → route → plugins → forwarding headers → forward.
 * The method and path are the request line's own: X-Original-* and X-Forwarded-Uri/-Method are
 * read by the forward-auth port only (design §8).
 */
export function createProxyServer(config: GatewayConfig, plugins: readonly RequestPlugin[], log: Logger, { pools, metrics, closing }: ProxyParts): Server {
  const pipeline = createPipeline(config, plugins, log);

  async function handle(request: IncomingMessage, response: ServerResponse, requestId: string, started: number): Promise<number> {
    if (closing())
      throw new GatewayError('GATEWAY_SHUTTING_DOWN', 'the gateway is shutting down; retry', { headers: { connection: 'close', 'retry-after': '1' } });
    const inbound = readInbound(request, config.requests);
    const { route, headers, ran } = await pipeline(request, inbound);
    setForwardingHeaders(headers, request, { host: inbound.hostText, trustedProxies: config.requests.trustedProxies });
    // After the plugins, so the upstream always sees the id the caller's answer and our log carry.
    headers['x-request-id'] = requestId;
    const path = `${route.basePath}${inbound.target.path}${inbound.target.query}`;
    const target: ForwardTarget = {
      dispatcher: pools.for(route.origin),
      method: request.method ?? 'GET',
      path,
      headers,
      maxBodyBytes: config.requests.maxBodyBytes,
      bodyTimeoutMs: config.requests.bodyTimeoutMs,
    };
    const outcome = await (tracingOn() ? forwardInSpan(request, response, target, route.origin) : forward(request, response, target));
    // Debug lines are built only when they will be written: a hit would allocate one per request for nothing.
    if (!log.isLevelEnabled('debug')) return outcome.status;
    if (!outcome.delivered)
      log.debug({ requestId, status: outcome.status, path: request.url?.split('?')[0] }, 'response cut short: the client went away or the upstream broke off');
    // The access log: the path as sent upstream but never its query, which may carry a secret,
    // and no header; refusals are logged where they are answered.
    if (ran)
      log.debug(
        {
          requestId,
          method: request.method,
          path: `${route.basePath}${inbound.target.path}`,
          upstream: route.origin,
          rule: route.rule?.pattern ?? 'default_target',
          plugins: ran,
          status: outcome.status,
          durationMs: Math.round(performance.now() - started),
        },
        'proxied',
      );
    return outcome.status;
  }

  const server = createServer(
    {
      // readInbound refuses a missing Host itself: Node's own 400 has no envelope and no X-Request-Id.
      requireHostHeader: false,
    },
    tracedRequests((request, response) => {
      const started = performance.now();
      const requestId = requestIdOf(request);
      // Set before anything is written: an upstream's answer keeps it unless it sends its own.
      response.setHeader('x-request-id', requestId);
      handle(request, response, requestId, started).then(
        (status) => metrics.observe(status, started),
        (error: unknown) => {
          const known = answerGatewayError(error, request, response, requestId, log);
          metrics.observe(known.status, started);
        },
      );
    }),
  );
  server.maxHeadersCount = config.requests.maxHeaders;
  server.on('clientError', answerClientError);
  server.on('connect', refuseConnect);
  // RFC 9110 §10.1.1 lets a server ignore an expectation it does not know; Node's own 417 has no envelope.
  server.on('checkExpectation', (request, response) => server.emit('request', request, response));
  return server;
}
