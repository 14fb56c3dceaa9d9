import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';

/** RFC 9110 §7.6.1 connection-specific fields, never forwarded. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'host',
  // Node has already answered `100 Continue` to the client, and undici refuses to send it.
  'expect']);

export type ForwardHeaders = Record<string, string | string[]>;

/** Headers for the upstream: hop-by-hop ones (and those `Connection` names) removed first. */
export function forwardableHeaders(headers: IncomingHttpHeaders): ForwardHeaders {
  const named = headers.connection ? headers.connection.toLowerCase().split(',').map((h) => h.trim()) : [];
  const out: ForwardHeaders = {};
  for (const name in headers) {
    const value = headers[name];
    if (value !== undefined && !HOP_BY_HOP.has(name) && !named.includes(name)) out[name] = value;
  }
  return out;
}

/** Node keeps only the first of repeated Authorization headers; the raw list shows them all. */
export function countHeader(request: IncomingMessage, name: string): number {
  let count = 0;
  const raw = request.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) if (raw[i]!.length === name.length && raw[i]!.toLowerCase() === name) count++;
  return count;
}

/** X-Forwarded-For appended, X-Forwarded-Proto and -Host set as the client saw them. */
export function addForwardingHeaders(headers: ForwardHeaders, request: IncomingMessage): void {
  const previous = headers['x-forwarded-for'];
  const client = request.socket.remoteAddress ?? 'unknown';
  headers['x-forwarded-for'] = previous ? `${[previous].flat().join(', ')}, ${client}` : client;
  headers['x-forwarded-proto'] ??= 'encrypted' in request.socket ? 'https' : 'http';
  if (request.headers.host) headers['x-forwarded-host'] ??= request.headers.host;
}
