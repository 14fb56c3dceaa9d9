import type { IncomingMessage } from 'node:http';
import { GatewayError } from './gateway-error.ts';
import { countHeader } from './headers.ts';
import { type HostAndPort, type PathPolicy, parseHost, parseRequestTarget, type RequestTarget, sameHost } from './request-target.ts';

/** What the gateway has decided about a request before any rule or plugin sees it. */
export interface Inbound {
  target: RequestTarget;
  host: HostAndPort;
  /** host[:port] as matched, for X-Forwarded-Host. */
  hostText: string;
  /** The port a host without one means: 443 for an https absolute-form target, else 80. */
  defaultPort: string;
}

/** The request policy's settings (config/request-policy.ts) that decide a request; declared here, so request/ imports nothing above it. */
export interface InboundPolicy {
  path: PathPolicy;
  /** Bodies larger than this are answered 413; undefined: no limit (streamed, never buffered). */
  maxBodyBytes: number | undefined;
}

/** What readInbound reads of a request: the proxy port's own, or the one a forward-auth check describes. */
export type InboundSource = Pick<IncomingMessage, 'url' | 'headers' | 'rawHeaders' | 'httpVersionMajor' | 'httpVersionMinor'>;

/**
 * Every byte here was chosen by the caller. Ambiguities that an upstream could resolve
 * differently from the gateway (two Hosts, two Authorizations, a Host that disagrees with an
 * absolute-form target, a path that resolves elsewhere) are refused or normalised now, so
 * that rules, plugins and the upstream all see one request.
 */
export function readInbound(request: InboundSource, policy: InboundPolicy): Inbound {
  if (countHeader(request, 'authorization') > 1)
    throw new GatewayError('GATEWAY_DUPLICATE_AUTHORIZATION', 'the request carries more than one Authorization header');
  if (countHeader(request, 'host') > 1) throw new GatewayError('GATEWAY_DUPLICATE_HOST', 'the request carries more than one Host header (RFC 9112 §3.2)');
  if (request.headers.host === undefined && request.httpVersionMajor === 1 && request.httpVersionMinor === 1)
    throw new GatewayError('GATEWAY_BAD_HOST', 'an HTTP/1.1 request must carry a Host header (RFC 9112 §3.2)');
  // RFC 9112 §6.1: without chunked last, the body has no knowable length. Node's parser refuses
  // this only after handing the request over, so it would reach the upstream all the same.
  const coding = request.headers['transfer-encoding'];
  if (coding !== undefined && !/(^|,)[ \t]*chunked[ \t]*$/i.test(coding))
    throw new GatewayError('GATEWAY_MALFORMED_REQUEST', 'the request is not valid HTTP/1.1: its Transfer-Encoding does not end in chunked');
  const target = parseRequestTarget(request.url ?? '/', policy.path);
  const headerHost = request.headers.host === undefined ? undefined : parseHost(request.headers.host);
  let host = headerHost ?? { host: '', port: undefined };
  let defaultPort = '80';
  if (target.authority !== undefined) {
    defaultPort = /^https:/i.test(request.url ?? '') ? '443' : '80';
    host = parseHost(target.authority);
    if (headerHost && !sameHost(headerHost, host, defaultPort)) {
      throw new GatewayError('GATEWAY_HOST_MISMATCH', 'the Host header names another host than the absolute-form request-target (RFC 9112 §3.2)');
    }
  }
  checkDeclaredLength(request, policy.maxBodyBytes);
  return { target, host, hostText: host.port === undefined ? host.host : `${host.host}:${host.port}`, defaultPort };
}

function checkDeclaredLength(request: InboundSource, max: number | undefined): void {
  const declared = request.headers['content-length'];
  if (max !== undefined && declared !== undefined && Number(declared) > max) throw tooLarge(max);
}

export function tooLarge(max: number): GatewayError {
  // The rest of the body is not read: the connection cannot carry another request.
  return new GatewayError('GATEWAY_BODY_TOO_LARGE', `the request body is larger than ${max} bytes (max_body_size)`, { headers: { connection: 'close' } });
}
