import { type LookupAddress, type LookupOptions, lookup } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';

/**
 * Where the service's own requests to an address a tenant chose (a scim_pull base_url, a
 * client's jwks_uri) may not reach: the service's own host and networks behind it. Loopback may be
 * allowed (development mode, tests); nothing else on this list ever is. IPv4-mapped IPv6
 * addresses (::ffff:10.0.0.1) are matched against the IPv4 rules by BlockList itself.
 */
const loopback = new BlockList();
loopback.addSubnet('127.0.0.0', 8, 'ipv4');
loopback.addAddress('::1', 'ipv6');

const forbidden = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this network", 0.0.0.0 included (unspecified)
  ['10.0.0.0', 8], // RFC 1918
  ['100.64.0.0', 10], // shared address space (CGNAT), RFC 6598
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local, cloud metadata services (169.254.169.254)
  ['172.16.0.0', 12], // RFC 1918
  ['192.0.0.0', 24], // IETF protocol assignments (RFC 6890)
  ['192.168.0.0', 16], // RFC 1918
  ['198.18.0.0', 15], // benchmarking networks, often internal (RFC 2544)
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved and broadcast
] as const) {
  forbidden.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 96], // unspecified, loopback and the deprecated IPv4-compatible form
  ['64:ff9b::', 96], // NAT64: reaches any IPv4 address, private ones included
  ['64:ff9b:1::', 48], // local-use NAT64
  ['2002::', 16], // 6to4: carries any IPv4 address, private ones included
  ['fec0::', 10], // site-local (deprecated, still routed inside some networks)
  ['fc00::', 7], // unique local (ULA)
  ['fe80::', 10], // link-local
  ['ff00::', 8], // multicast
] as const) {
  forbidden.addSubnet(network, prefix, 'ipv6');
}

export const FORBIDDEN_DESTINATION =
  'must not name or resolve to a loopback, private (RFC 1918), link-local, shared (100.64.0.0/10), unique-local, unspecified or multicast address';

/** Whether the service may connect to this IP address. */
export function isAllowedAddress(address: string, { allowLoopback }: { allowLoopback: boolean }): boolean {
  const family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
  if (allowLoopback && loopback.check(address, family)) return true;
  return !forbidden.check(address, family);
}

/** RFC 6761: `localhost` and its subdomains are loopback whatever a resolver says, with or without the root dot. */
function isLocalhostName(host: string): boolean {
  return /(^|\.)localhost\.?$/i.test(host);
}

/** The host of a URL as an IP address when it is an IP literal (brackets of IPv6 removed), else undefined. */
function ipLiteral(hostname: string): string | undefined {
  const bare = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  return isIP(bare) ? bare : undefined;
}

/**
 * The rule a URL's host breaks, checked at creation: an IP literal in a forbidden range, or a
 * name that resolves to any such address (every address, not only the first). A name that does
 * not resolve now is not refused: every connection is checked again when it is made
 * (guardedLookup), so neither that nor a later change of its DNS records reaches such a host.
 */
export async function hostProblem(url: URL, options: { allowLoopback: boolean; resolveTimeoutMs?: number }): Promise<string | undefined> {
  const literal = ipLiteral(url.hostname);
  if (literal) return isAllowedAddress(literal, options) ? undefined : FORBIDDEN_DESTINATION;
  if (isLocalhostName(url.hostname)) return options.allowLoopback ? undefined : FORBIDDEN_DESTINATION;
  const addresses = await resolveAll(url.hostname, options.resolveTimeoutMs ?? 3000);
  return addresses.every((a) => isAllowedAddress(a.address, options)) ? undefined : FORBIDDEN_DESTINATION;
}

function resolveAll(host: string, timeoutMs: number): Promise<LookupAddress[]> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve([]), timeoutMs);
    lookup(host, { all: true, verbatim: true }, (error, addresses) => {
      clearTimeout(timer);
      resolve(error ? [] : addresses);
    });
  });
}

/** The error a refused connection fails with; its message goes to the log only. */
export class ForbiddenDestinationError extends Error {
  readonly code = 'ERR_FORBIDDEN_DESTINATION';
  constructor(host: string, address: string) {
    super(`${host} resolves to ${address}, which the service may not reach`);
    this.name = 'ForbiddenDestinationError';
  }
}

/** Every address of a name: dns.lookup with `all: true`, or a stand-in that answers as a DNS server would (tests). */
export type ResolveAll = (
  hostname: string,
  options: LookupOptions,
  callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

const systemResolveAll: ResolveAll = (hostname, options, callback) => lookup(hostname, { ...options, all: true }, callback);

/**
 * A `lookup` for net/tls.connect (undici's `connect` option) that resolves every address and
 * refuses the connection when any is forbidden, so a name whose records change after the
 * connection was created (DNS rebinding) still cannot reach such a host. IP literals never
 * reach a lookup: checkLiteralHost covers them before the request. `resolveAll` is the
 * system resolver unless given.
 */
export function guardedLookup(options: { allowLoopback: boolean; resolveAll?: ResolveAll }): LookupFunction {
  const resolveAll = options.resolveAll ?? systemResolveAll;
  return (hostname, lookupOptions, callback) => {
    if (isLocalhostName(hostname) && !options.allowLoopback) {
      callback(new ForbiddenDestinationError(hostname, 'loopback'), '', 4);
      return;
    }
    resolveAll(hostname, lookupOptions, (error, addresses) => {
      if (error) return callback(error, '', 4);
      const refused = addresses.find((a) => !isAllowedAddress(a.address, options));
      if (refused || addresses.length === 0) return callback(new ForbiddenDestinationError(hostname, refused?.address ?? 'no address'), '', 4);
      if (lookupOptions.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
}

/** The refusal for a URL whose host is a forbidden IP literal (connect skips lookup for those), else undefined. */
export function checkLiteralHost(url: URL, options: { allowLoopback: boolean }): ForbiddenDestinationError | undefined {
  const literal = ipLiteral(url.hostname);
  if (literal) return isAllowedAddress(literal, options) ? undefined : new ForbiddenDestinationError(url.hostname, literal);
  return undefined;
}

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * The rule for a URL a tenant gives the service to fetch (a scim_pull base_url, a client's
 * jwks_uri) that a schema cannot say: https, plain http only to loopback in development, no
 * fragment nor credentials, and a query only where the caller allows one.
 */
export function tenantUrlProblem(raw: string, { dev, allowQuery }: { dev: boolean; allowQuery: boolean }): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'must be an absolute URL';
  }
  const loopbackHttp = url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname);
  if (url.protocol !== 'https:' && !(loopbackHttp && dev)) {
    return loopbackHttp ? 'http is allowed for loopback only when the service runs with TESSERA_DEV=1; use https' : 'must use https';
  }
  if (url.hash || url.username || url.password || (url.search && !allowQuery))
    return allowQuery ? 'must not carry a fragment or credentials' : 'must not carry a query, a fragment or credentials';
  return undefined;
}

/** The guarded lookup's refusal, wherever undici wrapped it (an AggregateError, a cause). */
export function forbiddenIn(error: unknown, depth = 0): ForbiddenDestinationError | undefined {
  if (error instanceof ForbiddenDestinationError) return error;
  if (depth > 4 || !(error instanceof Error)) return undefined;
  const inner = error instanceof AggregateError ? error.errors : [error.cause];
  for (const e of inner) {
    const found = forbiddenIn(e, depth + 1);
    if (found) return found;
  }
  return undefined;
}
