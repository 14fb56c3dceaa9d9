import { listenerDefaults } from '../../config/defaults.ts';
import type { ListenerPolicy } from '../../runtime/listener-policy.ts';
import { GatewayConfigError, type KeyNamer } from '../settings/config-error.ts';
import { parseDuration } from '../settings/duration.ts';

/**
 * The listener policy's settings besides headers_timeout (request-policy.ts reads that one):
 * both ports, and the forward-auth port to come, hold clients to the same bounds.
 */
export const LISTENER_KEYS = [
  'request_timeout',
  'keep_alive_timeout',
  'idle_timeout',
  'max_requests_per_connection',
  'max_connections',
  'max_connections_per_address',
] as const;

const MAX_REQUEST_TIMEOUT_MS = 3_600_000;
const MAX_KEEP_ALIVE_MS = 600_000;

/** `upstreamTimeoutMs`: an answer can take that long to start, so an unset idle timeout is longer. */
export function readListenerSettings(tree: Record<string, unknown>, key: KeyNamer, headersTimeoutMs: number, upstreamTimeoutMs: number): ListenerPolicy {
  const duration = (name: (typeof LISTENER_KEYS)[number], fallback: number, max: number, rule: string) => {
    if (tree[name] === undefined) return fallback;
    const ms = parseDuration(String(tree[name]));
    if (ms === undefined || ms > max) throw new GatewayConfigError(key([name]), `must be a duration such as 500ms, 5s or 1m, ${rule}`);
    return ms;
  };
  const count = (name: (typeof LISTENER_KEYS)[number], fallback: number, max: number) => {
    if (tree[name] === undefined) return fallback;
    if (!/^[1-9][0-9]{0,6}$/.test(String(tree[name])) || Number(tree[name]) > max)
      throw new GatewayConfigError(key([name]), `must be a whole number from 1 to ${max}`);
    return Number(tree[name]);
  };
  // Left unset, the request timeout follows a longer headers timeout rather than refusing it.
  const requestTimeoutMs = duration(
    'request_timeout',
    Math.max(listenerDefaults.requestTimeoutMs, headersTimeoutMs),
    MAX_REQUEST_TIMEOUT_MS,
    'from headers_timeout to 1h',
  );
  // Headers are part of the request: a request deadline before the headers' would hide it.
  if (requestTimeoutMs < headersTimeoutMs) throw new GatewayConfigError(key(['request_timeout']), 'must be at least headers_timeout');
  return {
    headersTimeoutMs,
    requestTimeoutMs,
    keepAliveTimeoutMs: duration('keep_alive_timeout', listenerDefaults.keepAliveTimeoutMs, MAX_KEEP_ALIVE_MS, 'at most 10m'),
    idleTimeoutMs: duration('idle_timeout', Math.max(listenerDefaults.idleTimeoutMs, upstreamTimeoutMs + 10_000), MAX_REQUEST_TIMEOUT_MS, 'at most 1h'),
    maxRequestsPerConnection: count('max_requests_per_connection', listenerDefaults.maxRequestsPerConnection, 100_000),
    maxConnections: count('max_connections', listenerDefaults.maxConnections, 1_000_000),
    maxConnectionsPerAddress: count('max_connections_per_address', listenerDefaults.maxConnectionsPerAddress, 1_000_000),
  };
}
