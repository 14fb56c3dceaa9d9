import type { IncomingHttpHeaders, IncomingMessage, OutgoingHttpHeaders } from 'node:http';

/** RFC 9110 §7.6.1: fields about one connection, not the message; never passed on either way. */
const CONNECTION_FIELDS = ['connection', 'keep-alive', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade'];

const NOT_FORWARDED_UPSTREAM = new Set([
  ...CONNECTION_FIELDS,
  'proxy-authenticate',
  'proxy-authorization',
  'host',
  // Node has already answered `100 Continue` to the client, and undici refuses to send it.
  'expect',
]);
const NOT_RETURNED_TO_CLIENT = new Set(CONNECTION_FIELDS);

export type ForwardHeaders = Record<string, string | string[]>;

/**
 * Headers for the upstream: connection-specific ones (and those `Connection` names) removed
 * first, and names with `_`: CGI, WSGI and PHP-FPM read `X_Forwarded_For` as `X-Forwarded-For`,
 * so an underscore spelling would get past every rule about the dashed one (nginx drops them
 * by default too).
 */
export function forwardableHeaders(headers: IncomingHttpHeaders): ForwardHeaders {
  const out = withoutConnectionFields(headers, NOT_FORWARDED_UPSTREAM);
  for (const name in out) if (name.includes('_')) delete out[name];
  return out;
}

/** The upstream's answer headers for the client, cleaned the same way. */
export function returnableHeaders(headers: IncomingHttpHeaders): OutgoingHttpHeaders {
  return withoutConnectionFields(headers, NOT_RETURNED_TO_CLIENT);
}

function withoutConnectionFields(headers: IncomingHttpHeaders, drop: ReadonlySet<string>): Record<string, string | string[]> {
  const connection = headers.connection;
  const named = connection
    ? connection
        .toLowerCase()
        .split(',')
        .map((h) => h.trim())
    : [];
  const out: Record<string, string | string[]> = {};
  for (const name in headers) {
    const value = headers[name];
    if (value !== undefined && !drop.has(name) && !named.includes(name)) out[name] = value;
  }
  return out;
}

/** Node keeps only the first of repeated Authorization headers; the raw list shows them all. */
export function countHeader(request: Pick<IncomingMessage, 'rawHeaders'>, name: string): number {
  let count = 0;
  const raw = request.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) if (raw[i]!.length === name.length && raw[i]!.toLowerCase() === name) count++;
  return count;
}
