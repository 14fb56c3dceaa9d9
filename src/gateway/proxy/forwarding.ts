import type { IncomingMessage } from 'node:http';
import type { BlockList } from 'node:net';
import type { ForwardHeaders } from '../request/headers.ts';

/**
 * Headers that tell an upstream who the client is, how it connected or which URL it asked
 * for. A caller can write any of them, so from an untrusted peer they are dropped (every
 * `x-forwarded-*`, including -Ssl, -Scheme and -Client-Cert, and the CDN spellings of the
 * client address) and the gateway sets its own. Path overrides re-route a request inside some
 * frameworks and proxies: the gateway has decided the path, so they are dropped from everyone.
 */
const CLIENT_CLAIMS = new Set(['forwarded', 'x-real-ip', 'x-client-ip', 'true-client-ip', 'x-cluster-client-ip', 'cf-connecting-ip', 'fastly-client-ip']);
const isClientClaim = (name: string) => name.startsWith('x-forwarded-') || CLIENT_CLAIMS.has(name);
const PATH_OVERRIDES = ['x-original-url', 'x-rewrite-url', 'x-original-uri', 'x-envoy-original-path'];

export interface ForwardingFacts {
  /** The host the caller asked for, as matched (host[:port]). */
  host: string;
  trustedProxies: BlockList;
}

/** The peer's address as one family sees it: `::ffff:10.0.0.1` is the IPv4 peer 10.0.0.1. */
function peerOf(request: IncomingMessage): { address: string; family: 'ipv4' | 'ipv6' } {
  const raw = request.socket.remoteAddress ?? '';
  if (raw.startsWith('::ffff:') && raw.includes('.')) return { address: raw.slice(7), family: 'ipv4' };
  return { address: raw, family: raw.includes(':') ? 'ipv6' : 'ipv4' };
}

const joined = (value: string | string[] | undefined) => (value === undefined ? undefined : [value].flat().join(', '));
/** RFC 7239 §6: IPv6 addresses and anything with a colon are quoted. */
const node = (value: string, ipv6: boolean) => (ipv6 ? `"[${value}]"` : value.includes(':') ? `"${value}"` : value);
/** RFC 7239 §4: the host as a quoted-string, so nothing in it can start a parameter or an element. */
const quoted = (value: string) => `"${value.replace(/["\\]/g, '\\$&')}"`;

/**
 * X-Forwarded-For/-Host/-Proto, Forwarded and X-Real-IP, set by the gateway. Only a peer in
 * the trusted-proxy list has its own values kept (and extended with its address).
 */
export function setForwardingHeaders(headers: ForwardHeaders, request: IncomingMessage, facts: ForwardingFacts): void {
  for (const name of PATH_OVERRIDES) delete headers[name];
  const peer = peerOf(request);
  const trusted = peer.address !== '' && facts.trustedProxies.check(peer.address, peer.family);
  const proto = 'encrypted' in request.socket ? 'https' : 'http';
  const element = `for=${node(peer.address || 'unknown', peer.family === 'ipv6')};host=${quoted(facts.host)};proto=${proto}`;
  if (!trusted) {
    for (const name of Object.keys(headers)) if (isClientClaim(name)) delete headers[name];
    headers['x-forwarded-for'] = peer.address || 'unknown';
    headers['x-forwarded-host'] = facts.host;
    headers['x-forwarded-proto'] = proto;
    headers['x-real-ip'] = peer.address || 'unknown';
    headers.forwarded = element;
    return;
  }
  const forwardedFor = joined(headers['x-forwarded-for']);
  headers['x-forwarded-for'] = forwardedFor ? `${forwardedFor}, ${peer.address}` : peer.address;
  headers['x-forwarded-host'] ??= facts.host;
  headers['x-forwarded-proto'] ??= proto;
  headers['x-real-ip'] ??= peer.address;
  const forwarded = joined(headers.forwarded);
  headers.forwarded = forwarded ? `${forwarded}, ${element}` : element;
}
