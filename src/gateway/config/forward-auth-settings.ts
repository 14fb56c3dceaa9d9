import { type BlockList, isIP } from 'node:net';
import { type ConfiguredPlugin, forwardAuthRefusal } from '../plugins/registry.ts';
import type { UrlRule } from '../request/routing.ts';
import { GatewayConfigError, type KeyNamer } from '../settings/config-error.ts';
import { readAddressList } from './request-policy.ts';
import { objectAt, readBoolean, readPort, refuseNonScalar, type Tree } from './values.ts';

/** Design §8: the port a proxy the user already runs asks for authorization checks. */
export interface ForwardAuthSettings {
  port: number;
  host: string;
  /** Peers allowed to ask; empty: whoever reaches the loopback address it binds. */
  trustedProxies: BlockList;
  trustedProxyList: string[];
  /** The operator's name of the port, for a port-in-use message. */
  portKey: string;
}

/** `forward_auth.<key>` in a file, `GATEWAY_FORWARD_AUTH_<KEY>` in the environment. */
export const FORWARD_AUTH_KEYS = ['port', 'host', 'trusted_proxies', 'subject_cookie_stripped_by_proxy'] as const;

const DEFAULT_HOST = '127.0.0.1';

/** RFC 6761's `localhost`, 127.0.0.0/8 and ::1: only processes on this machine reach it. */
function isLoopback(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (bare === 'localhost' || bare === '::1') return true;
  return isIP(bare) === 4 && bare.startsWith('127.');
}

/**
 * The `forward_auth` section, or undefined when it names no port (the listener is off). The
 * port trusts the X-Forwarded-* / X-Original-* it is sent because only the proxy can reach
 * it, so any address but loopback needs the proxies listed; and every plugin a rule can turn
 * on must be one whose subject the proxy's overwrite removes (design §8).
 */
export function readForwardAuth(
  value: unknown,
  key: KeyNamer,
  context: { ports: number[]; workers: number; plugins: readonly ConfiguredPlugin[]; urls: readonly UrlRule[] },
): ForwardAuthSettings | undefined {
  if (value === undefined) return undefined;
  const tree: Tree = objectAt(value, key(['forward_auth']));
  for (const name of Object.keys(tree)) {
    if (!FORWARD_AUTH_KEYS.includes(name as never))
      throw new GatewayConfigError(key(['forward_auth', name]), `is not a forward_auth setting (${FORWARD_AUTH_KEYS.join(', ')})`);
    if (name !== 'trusted_proxies') refuseNonScalar(tree[name], key(['forward_auth', name]));
  }
  if (tree.port === undefined) {
    const given = Object.keys(tree)[0];
    if (given === undefined) return undefined;
    throw new GatewayConfigError(key(['forward_auth', 'port']), `is required when forward_auth.${given} is set: it turns the forward-auth listener on`);
  }
  const port = readPort(tree.port, 0, key(['forward_auth', 'port']));
  if (port !== 0 && context.ports.includes(port))
    throw new GatewayConfigError(key(['forward_auth', 'port']), 'must differ from port and admin_port: authorization checks have a listener of their own');
  // Workers share a port by its number: each asking for port 0 would get a different one.
  if (port === 0 && context.workers > 1)
    throw new GatewayConfigError(key(['forward_auth', 'port']), 'must be a number, not 0, when workers is more than 1 (workers share each port by its number)');
  const host = tree.host === undefined ? DEFAULT_HOST : String(tree.host);
  const { trustedProxies, list } = readAddressList(tree.trusted_proxies, key(['forward_auth', 'trusted_proxies']));
  if (!isLoopback(host) && list.length === 0) {
    throw new GatewayConfigError(
      key(['forward_auth', 'host']),
      `is ${host}, not loopback: list the proxies that may ask in ${key(['forward_auth', 'trusted_proxies'])} (anyone reaching this port could otherwise forge the request it checks)`,
    );
  }
  const strippedKey = key(['forward_auth', 'subject_cookie_stripped_by_proxy']);
  const proxy = { subjectCookieStripped: readBoolean(tree.subject_cookie_stripped_by_proxy, false, strippedKey), subjectCookieStrippedKey: strippedKey };
  for (const plugin of context.plugins) {
    const used = plugin.enabled || context.urls.some((rule) => rule.plugins[plugin.id] === true);
    const refusal = used ? forwardAuthRefusal(plugin, proxy) : undefined;
    if (refusal) throw refusal;
  }
  return { port, host, trustedProxies, trustedProxyList: list, portKey: key(['forward_auth', 'port']) };
}
