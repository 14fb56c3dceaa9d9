import { isIPv6 } from 'node:net';
import { GatewayError } from './gateway-error.ts';

/**
 * What to do with `%2F`, `%5C` and `\` in a path. They are where upstreams disagree most
 * (one decodes `%2F` to a separator, another keeps it; IIS and some frameworks read `\` as
 * `/`), so by default the gateway refuses them rather than guess which reading the upstream
 * has. Envoy's `path_with_escaped_slashes_action` is the model.
 *  - reject:   400 (default);
 *  - keep:     forwarded as they are, and matched as ordinary characters of a segment;
 *  - unescape: turned into `/` before dot-segments are removed, so rules and upstream see separators.
 */
export const ESCAPED_SLASH_ACTIONS = ['reject', 'keep', 'unescape'] as const;
export type EscapedSlashAction = (typeof ESCAPED_SLASH_ACTIONS)[number];

/**
 * `;` in a path: Tomcat, Jetty and Spring strip `;params` from every segment before routing,
 * so `/api;x/y` is their `/api/y` while a rule sees `api;x`. Refused by default, as Spring
 * Security's firewall does; `keep` forwards them, for upstreams that use matrix parameters.
 */
export const SEMICOLON_ACTIONS = ['reject', 'keep'] as const;
export type SemicolonAction = (typeof SEMICOLON_ACTIONS)[number];

export interface PathPolicy {
  escapedSlashes: EscapedSlashAction;
  semicolons: SemicolonAction;
  /** `//` collapses to `/` (most upstreams do the same, so rules must see it too). */
  mergeSlashes: boolean;
}

/** The request-target as the upstream will see it: decided once, before any rule is matched. */
export interface RequestTarget {
  /** Normalised per RFC 3986 §6.2.2 (and the policy); always starts with `/`. */
  path: string;
  /** `?` and the query exactly as sent, or empty. */
  query: string;
  /** The authority of an absolute-form target (RFC 9112 §3.2.2), as sent. */
  authority?: string;
}

const bad = (message: string) => new GatewayError('GATEWAY_BAD_REQUEST_TARGET', message);

/** RFC 3986 §2.3: these decode to themselves, so `%41` and `A` are one path. */
const UNRESERVED = /[A-Za-z0-9\-._~]/;
/** The scheme and authority of an absolute-form target; the authority runs to the first `/`, `?`, `#` or the end. */
const ABSOLUTE_FORM = /^https?:\/\/([^/?#]*)/i;
/** Nothing in a path needs decoding or resolving: the hot path returns it untouched. */
const NEEDS_WORK = /%|\\|\/\/|\/\.|;/;

/** What Node's parser lets through in a request line's target: visible ASCII. A forward-auth check's X-Forwarded-Uri is a header, which may carry more. */
const TARGET_BYTES = /^[\x21-\x7e]*$/;

export function parseRequestTarget(raw: string, policy: PathPolicy): RequestTarget {
  if (!TARGET_BYTES.test(raw)) throw bad('the request-target holds a space, a control or a non-ASCII character');
  if (raw.includes('#')) throw bad('the request-target must not carry a fragment (#)');
  let rest = raw;
  let authority: string | undefined;
  if (!raw.startsWith('/')) {
    const absolute = ABSOLUTE_FORM.exec(raw);
    if (!absolute) throw bad('the request-target must be a path (/…) or an absolute http(s) URL');
    authority = absolute[1]!;
    if (authority === '' || authority.includes('@')) throw bad('the absolute-form target must name a host, without user information');
    // What follows the authority is empty, a path or a query (`#` was refused above): an
    // empty path is the root (RFC 9112 §3.2.2), with or without a query.
    rest = raw.slice(absolute[0].length);
    if (!rest.startsWith('/')) rest = `/${rest}`;
  }
  const mark = rest.indexOf('?');
  const path = mark === -1 ? rest : rest.slice(0, mark);
  const query = mark === -1 ? '' : rest.slice(mark);
  return { path: normalisePath(path, policy), query, ...(authority === undefined ? {} : { authority }) };
}

/**
 * RFC 3986 §6.2.2: percent-encodings of unreserved characters decoded, the others' hex
 * upper-cased, dot-segments removed (§5.2.4); a path that climbs above the root is refused
 * rather than clamped, since no honest client sends one.
 */
export function normalisePath(path: string, policy: PathPolicy): string {
  // Stryker disable next-line ConditionalExpression: a fast path only; for a path (always starting with /) without %, \, //, /. or ; the work below returns it unchanged
  if (!NEEDS_WORK.test(path)) return path;
  let decoded = decodeUnreserved(path);
  if (policy.escapedSlashes === 'reject' && /%2F|%5C|\\/.test(decoded)) {
    throw bad('the path holds an escaped slash (%2F, %5C) or a backslash, which upstreams read differently');
  }
  if (policy.semicolons === 'reject' && decoded.includes(';')) {
    throw bad('the path holds a ";", which servlet containers strip with what follows it from a segment');
  }
  if (policy.escapedSlashes === 'unescape') decoded = decoded.replace(/%2F|%5C|\\/g, '/');
  const segments = decoded.split('/').slice(1);
  const out: string[] = [];
  segments.forEach((segment, i) => {
    const last = i === segments.length - 1;
    // Servlet containers read `..;x` as `..`: refused, or `/open/..;/api` would pass as /open.
    if (/^\.\.?;/.test(segment)) throw bad('a dot-segment with parameters (..;) is not allowed in the path');
    if (segment === '.' || segment === '..') {
      if (segment === '..' && out.pop() === undefined) throw bad('the path climbs above the root (..)');
      if (last) out.push('');
      return;
    }
    if (segment === '' && policy.mergeSlashes && !last) return;
    out.push(segment);
  });
  return `/${out.join('/')}`;
}

function decodeUnreserved(path: string): string {
  return path.replace(/%([0-9A-Fa-f]{2})?/g, (_match, hex: string | undefined) => {
    if (hex === undefined) throw bad('the path holds a % that does not start a percent-encoding (%XX)');
    const code = Number.parseInt(hex, 16);
    // An encoded NUL or control character has no business in a path and truncates or
    // splits it in some upstreams.
    if (code < 0x20 || code === 0x7f) throw bad('the path holds an encoded control character');
    const char = String.fromCharCode(code);
    return UNRESERVED.test(char) ? char : `%${hex.toUpperCase()}`;
  });
}

/** A host as rules compare it: lower-cased, without a trailing dot, the port apart. */
export interface HostAndPort {
  host: string;
  port: string | undefined;
}

/**
 * A DNS name (letters, digits, `-`, `_`, dot-separated labels, none empty) or an IP literal.
 * Nothing else: a Host with `,`, `;`, `=` or `%` would reach the upstream inside Forwarded and
 * X-Forwarded-Host, and `a..b` or a second trailing dot would be a host the rules never saw.
 */
const HOST_PORT = /^(\[[0-9A-Fa-f:.]+\]|(?:[A-Za-z0-9_-]+\.)*[A-Za-z0-9_-]+\.?)(?::(\d{1,5}))?$/;

const badHost = () => new GatewayError('GATEWAY_BAD_HOST', 'the Host header is not a valid host[:port]');

export function parseHost(value: string): HostAndPort {
  // RFC 9112 §3.2: an empty Host is allowed; it matches only host patterns of `*`.
  if (value === '') return { host: '', port: undefined };
  const match = HOST_PORT.exec(value);
  if (!match) throw badHost();
  const name = match[1]!;
  const port = match[2];
  // The brackets hold an IPv6 address (RFC 3986 §3.2.2), not any run of hex digits, colons and dots (`[..]`).
  if (name.startsWith('[') && !isIPv6(name.slice(1, -1))) throw badHost();
  if (Number(port ?? 0) > 65_535) throw badHost();
  return { host: name.toLowerCase().replace(/\.$/, ''), port };
}

/** Two spellings of one host (case, trailing dot, default port) are the same host. */
export function sameHost(a: HostAndPort, b: HostAndPort, defaultPort: string): boolean {
  return a.host === b.host && (a.port ?? defaultPort) === (b.port ?? defaultPort);
}
