import type { IncomingMessage } from 'node:http';
import type { BlockList } from 'node:net';
import type { ForwardHeaders } from './headers.ts';

/**
 * Headers that tell an upstream who the client is or which URL it asked for. A caller can
 * write any of them, so from an untrusted peer they are dropped and the gateway's own are
 * set. X-Original-URL and X-Rewrite-URL override the path in some frameworks: the gateway
 * has decided the path, so they are dropped from everyone.
 */
const CLIENT_CLAIMS = ['x-forwarded-for', 'x-forwarded-host', 'x-forwarded-proto', 'x-forwarded-port', 'x-forwarded-prefix', 'forwarded', 'x-real-ip'];
const PATH_OVERRIDES = ['x-original-url', 'x-rewrite-url'];

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

/**
 * X-Forwarded-For/-Host/-Proto, Forwarded and X-Real-IP, set by the gateway. Only a peer in
 * the trusted-proxy list has its own values kept (and extended with its address).
 */
export function setForwardingHeaders(headers: ForwardHeaders, request: IncomingMessage, facts: ForwardingFacts): void {
  for (const name of PATH_OVERRIDES) delete headers[name];
  const peer = peerOf(request);
  const trusted = peer.address !== '' && facts.trustedProxies.check(peer.address, peer.family);
  const proto = 'encrypted' in request.socket ? 'https' : 'http';
  const element = `for=${node(peer.address || 'unknown', peer.family === 'ipv6')};host=${node(facts.host, false)};proto=${proto}`;
  if (!trusted) {
    for (const name of CLIENT_CLAIMS) delete headers[name];
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
