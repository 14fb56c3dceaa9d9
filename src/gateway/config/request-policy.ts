import { BlockList, isIP } from 'node:net';
import { listenerDefaults } from '../../config/defaults.ts';
import type { InboundPolicy } from '../request/inbound.ts';
import { ESCAPED_SLASH_ACTIONS, type PathPolicy, SEMICOLON_ACTIONS } from '../request/request-target.ts';
import { GatewayConfigError, type KeyNamer } from '../settings/config-error.ts';
import { parseDuration } from '../settings/duration.ts';

/** How the gateway treats what a caller sends before any rule is matched (docs/gateway.md). */
export interface RequestPolicy extends InboundPolicy {
  /** Peers whose X-Forwarded-* / Forwarded / X-Real-IP are believed; empty: nobody's. */
  trustedProxies: BlockList;
  /** The CIDRs as configured, for the start-up log. */
  trustedProxyList: string[];
  /** Headers not complete within this are answered 408 and the connection closed. */
  headersTimeoutMs: number;
  /** A request body that stalls this long between two chunks is cut (408), freeing its upstream connection. */
  bodyTimeoutMs: number;
  /** More header fields than this are answered 431 (by Node's parser, in our envelope). */
  maxHeaders: number;
}

/** Top-level keys this module reads, with their environment spelling's suffix. */
export const REQUEST_POLICY_KEYS = [
  'trusted_proxies',
  'path_escaped_slashes',
  'path_semicolons',
  'path_merge_slashes',
  'headers_timeout',
  'body_timeout',
  'max_headers',
  'max_body_size',
] as const;

export const requestPolicyDefaults = Object.freeze({
  escapedSlashes: 'reject' as const,
  semicolons: 'reject' as const,
  mergeSlashes: true,
  headersTimeoutMs: listenerDefaults.headersTimeoutMs,
  bodyTimeoutMs: 10_000,
  maxHeaders: 100,
});

const SIZE = /^([1-9][0-9]{0,12})(k|m|g)?$/i;
const SIZE_UNITS: Record<string, number> = { '': 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 };

export function readRequestPolicy(tree: Record<string, unknown>, key: KeyNamer): RequestPolicy {
  const escaped = String(tree.path_escaped_slashes ?? requestPolicyDefaults.escapedSlashes);
  if (!(ESCAPED_SLASH_ACTIONS as readonly string[]).includes(escaped))
    throw new GatewayConfigError(key(['path_escaped_slashes']), `must be one of ${ESCAPED_SLASH_ACTIONS.join(', ')}`);
  const semicolons = String(tree.path_semicolons ?? requestPolicyDefaults.semicolons);
  if (!(SEMICOLON_ACTIONS as readonly string[]).includes(semicolons))
    throw new GatewayConfigError(key(['path_semicolons']), `must be one of ${SEMICOLON_ACTIONS.join(', ')}`);
  const merge = tree.path_merge_slashes ?? requestPolicyDefaults.mergeSlashes;
  if (![true, false, 'true', 'false'].includes(merge as never)) throw new GatewayConfigError(key(['path_merge_slashes']), 'must be true or false');

  const headersTimeoutMs = tree.headers_timeout === undefined ? requestPolicyDefaults.headersTimeoutMs : parseDuration(String(tree.headers_timeout));
  if (headersTimeoutMs === undefined) throw new GatewayConfigError(key(['headers_timeout']), 'must be a duration such as 500ms, 5s or 1m');
  const bodyTimeoutMs = tree.body_timeout === undefined ? requestPolicyDefaults.bodyTimeoutMs : parseDuration(String(tree.body_timeout));
  if (bodyTimeoutMs === undefined) throw new GatewayConfigError(key(['body_timeout']), 'must be a duration such as 500ms, 5s or 1m');
  const maxHeaders = tree.max_headers === undefined ? requestPolicyDefaults.maxHeaders : Number(tree.max_headers);
  if (!/^[1-9][0-9]{0,3}$/.test(String(tree.max_headers ?? maxHeaders)))
    throw new GatewayConfigError(key(['max_headers']), 'must be a whole number from 1 to 9999');
  let maxBodyBytes: number | undefined;
  if (tree.max_body_size !== undefined) {
    const size = SIZE.exec(String(tree.max_body_size));
    if (!size) throw new GatewayConfigError(key(['max_body_size']), 'must be a size in bytes, or with k, m or g (e.g. 10m)');
    maxBodyBytes = Number(size[1]) * SIZE_UNITS[(size[2] ?? '').toLowerCase()]!;
  }

  const { trustedProxies, list } = readAddressList(tree.trusted_proxies, key(['trusted_proxies']));
  return {
    path: {
      escapedSlashes: escaped as PathPolicy['escapedSlashes'],
      semicolons: semicolons as PathPolicy['semicolons'],
      mergeSlashes: merge === true || merge === 'true',
    },
    trustedProxies,
    trustedProxyList: list,
    headersTimeoutMs,
    bodyTimeoutMs,
    maxHeaders,
    maxBodyBytes,
  };
}

/** A list of addresses or CIDRs (a file's list, or the environment's comma-separated text), checked and compiled. */
export function readAddressList(value: unknown, name: string): { trustedProxies: BlockList; list: string[] } {
  const raw = value ?? [];
  const list = (typeof raw === 'string' ? raw.split(',') : Array.isArray(raw) ? raw.map(String) : undefined)?.map((s) => s.trim()).filter(Boolean);
  if (!list) throw new GatewayConfigError(name, 'must be a list of CIDRs (or, in the environment, comma-separated)');
  const trustedProxies = new BlockList();
  for (const cidr of list) {
    const [address = '', bits] = cidr.split('/');
    const family = isIP(address);
    const prefix = bits === undefined ? (family === 6 ? 128 : 32) : Number(bits);
    if (family === 0 || !/^\d{1,3}$/.test(bits ?? '0') || prefix > (family === 6 ? 128 : 32)) {
      throw new GatewayConfigError(name, `"${cidr}" is not an address or CIDR (e.g. 10.0.0.0/8, fd00::/8)`);
    }
    trustedProxies.addSubnet(address, prefix, family === 6 ? 'ipv6' : 'ipv4');
  }
  return { trustedProxies, list };
}
