import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';

/** RFC 9110 §7.6.1 connection-specific fields, never forwarded. */
const HOP_BY_HOP = ['connection', 'keep-alive', 'proxy-connection', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade'];

export type ForwardHeaders = Record<string, string | string[]>;

/** Headers for the upstream: hop-by-hop ones (and those `Connection` names) removed first. */
export function forwardableHeaders(headers: IncomingHttpHeaders): ForwardHeaders {
  const named = String(headers.connection ?? '').toLowerCase().split(',').map((h) => h.trim()).filter(Boolean);
  const drop = new Set([...HOP_BY_HOP, ...named, 'host']);
  const out: ForwardHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined && !drop.has(name)) out[name] = value;
  }
  return out;
}

/** Node keeps only the first of repeated Authorization headers; the raw list shows them all. */
export function countHeader(request: IncomingMessage, name: string): number {
  let count = 0;
  for (let i = 0; i < request.rawHeaders.length; i += 2) if (request.rawHeaders[i]!.toLowerCase() === name) count++;
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
