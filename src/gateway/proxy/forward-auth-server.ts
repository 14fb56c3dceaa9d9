import { createServer, type IncomingMessage, METHODS, type OutgoingHttpHeaders, type Server } from 'node:http';
import { isIP } from 'node:net';
import type { Logger } from 'pino';
import { tracedRequests } from '../../telemetry/server-spans.ts';
import { injectTraceContext } from '../../telemetry/spans.ts';
import type { ForwardAuthSettings } from '../config/forward-auth-settings.ts';
import type { GatewayConfig } from '../config/gateway-config.ts';
import { GatewayError } from '../request/gateway-error.ts';
import { countHeader, forwardableHeaders } from '../request/headers.ts';
import { type Inbound, type InboundSource, readInbound } from '../request/inbound.ts';
import { answerGatewayError } from './answer-error.ts';
import { answerClientError, refuseConnect } from './client-errors.ts';
import type { Pipeline } from './pipeline.ts';
import { requestIdOf } from './request-id.ts';

/** The methods Node's parser accepts on the proxy port: a check is refused any method that port would refuse. */
const METHOD = new Set(METHODS.filter((method) => method !== 'CONNECT'));

const conflict = (what: string) => new GatewayError('GATEWAY_FORWARD_AUTH_CONFLICT', `the check names two different requests: ${what} disagree`);

/** One value of a header the proxy sets once; a repeated one could mean two requests. */
function single(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name];
  if (value === undefined) return undefined;
  if (countHeader(request, name) > 1) throw conflict(`two ${name} headers`);
  return value as string;
}

/** Either spelling of the same fact, refused when both are given and differ. */
function agreed(request: IncomingMessage, forwarded: string, original: string): string | undefined {
  const a = single(request, forwarded);
  const b = single(request, original);
  if (a !== undefined && b !== undefined && a !== b) throw conflict(`${forwarded} and ${original}`);
  return a ?? b;
}

/**
 * The request a check asks about: X-Forwarded-Method/-Uri/-Host/-Proto (Traefik, Caddy),
 * X-Original-Method/-URI (nginx), or the check's own request line and Host (Envoy's ext_authz
 * HTTP service sends the original method, path and headers).
 */
function describedRequest(request: IncomingMessage): { method: string; source: InboundSource; https: boolean } {
  const method = agreed(request, 'x-forwarded-method', 'x-original-method') ?? request.method ?? 'GET';
  // The proxy port answers CONNECT (refuseConnect) and an unknown or lower-case method (its parser) with 400.
  if (method === 'CONNECT') throw new GatewayError('GATEWAY_BAD_REQUEST_TARGET', 'CONNECT is not supported: the gateway opens no tunnels');
  if (!METHOD.has(method)) throw new GatewayError('GATEWAY_MALFORMED_REQUEST', 'the checked method is not one the proxy port accepts');
  const url = agreed(request, 'x-forwarded-uri', 'x-original-uri') ?? request.url ?? '/';
  const host = single(request, 'x-forwarded-host') ?? request.headers.host;
  const proto = single(request, 'x-forwarded-proto');
  const headers = { ...request.headers, host };
  const source = { url, headers, rawHeaders: request.rawHeaders, httpVersionMajor: request.httpVersionMajor, httpVersionMinor: request.httpVersionMinor };
  return { method, source, https: proto?.toLowerCase() === 'https' };
}

function peerOf(request: IncomingMessage): string {
  const address = request.socket.remoteAddress ?? '';
  return /^::ffff:\d+\.\d+\.\d+\.\d+$/i.test(address) ? address.slice(7) : address;
}

/**
 * The forward-auth listener (design §8): answers a proxy's authorization check with the same
 * normalisation, URL rules, plugins and cache as the proxy port (the shared Pipeline). 200
 * carries the headers the upstream must receive and no body; a refusal is the plugin's own
 * status and JSON body, which the proxy returns to its client.
 */
export function createForwardAuthServer(config: GatewayConfig, settings: ForwardAuthSettings, pipeline: Pipeline, log: Logger, closing: () => boolean): Server {
  async function check(request: IncomingMessage, requestId: string): Promise<OutgoingHttpHeaders> {
    if (closing())
      throw new GatewayError('GATEWAY_SHUTTING_DOWN', 'the gateway is shutting down; retry', { headers: { connection: 'close', 'retry-after': '1' } });
    const peer = peerOf(request);
    if (settings.trustedProxyList.length > 0 && !settings.trustedProxies.check(peer, isIP(peer) === 6 ? 'ipv6' : 'ipv4'))
      throw new GatewayError('GATEWAY_FORWARD_AUTH_FORBIDDEN', 'this address may not ask for authorization checks (forward_auth.trusted_proxies)');
    const { method, source, https } = describedRequest(request);
    const decided = readInbound(source, config.requests);
    const inbound: Inbound = decided.target.authority === undefined && https ? { ...decided, defaultPort: '443' } : decided;
    const { route, headers, ran } = await pipeline(request, inbound);
    // With tracing on, the check's span as the upstream's parent, for a proxy that copies it.
    injectTraceContext(headers);
    // What the plugins wrote is what the proxy must write over the caller's request.
    const answer: OutgoingHttpHeaders = {};
    for (const name in headers) if (headers[name] !== request.headers[name]) answer[name] = headers[name];
    // And what they removed, answered empty: a cookie subject that was the only cookie leaves no
    // Cookie, and a proxy that copies the answer's Cookie must clear the caller's, not keep it.
    for (const name in forwardableHeaders(request.headers)) if (!(name in headers)) answer[name] = '';
    answer['x-request-id'] = requestId;
    if (ran)
      log.debug({ requestId, method, path: `${route.basePath}${inbound.target.path}`, rule: route.rule?.pattern ?? 'default_target', plugins: ran }, 'checked');
    return answer;
  }

  const server = createServer(
    { requireHostHeader: false },
    tracedRequests((request, response) => {
      const requestId = requestIdOf(request);
      response.setHeader('x-request-id', requestId);
      // A check's body is never read: nginx and Caddy send none, Envoy only when told to. One
      // still arriving when the answer goes ends the connection: drained, it could run on for
      // request_timeout whatever max_body_size says.
      request.resume();
      const closeIfBodyPending = () => request.complete || response.setHeader('connection', 'close');
      check(request, requestId).then(
        (headers) => {
          closeIfBodyPending();
          response.writeHead(200, { ...headers, 'cache-control': 'no-store', 'content-length': '0' }).end();
        },
        (error: unknown) => {
          closeIfBodyPending();
          answerGatewayError(error, request, response, requestId, log);
        },
      );
    }),
  );
  server.maxHeadersCount = config.requests.maxHeaders;
  server.on('clientError', answerClientError);
  server.on('connect', refuseConnect);
  server.on('checkExpectation', (request, response) => server.emit('request', request, response));
  return server;
}
