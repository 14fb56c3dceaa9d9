import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { ListenerPolicy } from '../../runtime/listener-policy.ts';
import { parseWorkers, WORKERS_RULE } from '../../runtime/run-workers.ts';
import { readTracingSettings, type TracingSettings } from '../../telemetry/tracing-settings.ts';
import { type ConfiguredPlugin, PLUGIN_FIELDS } from '../plugins/registry.ts';
import type { UrlRule } from '../request/routing.ts';
import { envKey, GatewayConfigError, type KeyNamer } from '../settings/config-error.ts';
import { parseDuration } from '../settings/duration.ts';
import { FORWARD_AUTH_KEYS, type ForwardAuthSettings, readForwardAuth } from './forward-auth-settings.ts';
import { LISTENER_KEYS, readListenerSettings } from './listener-settings.ts';
import { mergeSources } from './merge-sources.ts';
import { readPluginEntries } from './plugin-entries.ts';
import { REQUEST_POLICY_KEYS, type RequestPolicy, readRequestPolicy } from './request-policy.ts';
import { readUrlRules } from './url-rules.ts';
import { readPort, readUrl, refuseNonScalar, type Tree } from './values.ts';

export interface GatewayConfig {
  port: number;
  adminPort: number;
  host: string;
  defaultTarget?: string;
  /** How long an upstream may take to answer with headers (504 after). */
  upstreamTimeoutMs: number;
  logLevel: (typeof LOG_LEVELS)[number];
  /** Processes serving both ports (node:cluster); each keeps its own token cache. */
  workers: number;
  urls: UrlRule[];
  /** In execution order (the order of N). */
  plugins: ConfiguredPlugin[];
  requests: RequestPolicy;
  /** Timeouts, keep-alive and connection caps of every port, per process; trusted_proxies are exempt from the per-address cap. */
  listener: ListenerPolicy;
  /** On SIGTERM: how long to proxy on with /readyz failing, then how long requests in flight get. */
  shutdown: { delayMs: number; timeoutMs: number };
  /** The forward-auth listener (design §8); undefined: off. */
  forwardAuth?: ForwardAuthSettings;
  /** How the operator names the two ports (`GATEWAY_PORT`, or `port` in a file), for a port-in-use message. */
  keys: { port: string; adminPort: string };
}

/** Top-level keys that hold a structure of their own. */
const SECTIONS = ['urls', 'plugins', 'forward_auth'] as const;
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
/** Single-valued top-level settings: `GATEWAY_<KEY>` in the environment, `<key>` in a file. */
export const TOP_LEVEL_KEYS = [
  'port',
  'admin_port',
  'host',
  'default_target',
  'upstream_timeout',
  'log_level',
  'workers',
  'shutdown_delay',
  'shutdown_timeout',
  ...REQUEST_POLICY_KEYS,
  ...LISTENER_KEYS,
] as const;

export const gatewayDefaults = Object.freeze({
  port: 8000,
  adminPort: 8001,
  host: '127.0.0.1',
  upstreamTimeoutMs: 30_000,
  logLevel: 'info' as const,
  workers: 1,
  shutdownDelayMs: 0,
  shutdownTimeoutMs: 10_000,
});

const MAX_SHUTDOWN_MS = 300_000;

/**
 * `GATEWAY_*` variables into the same tree a file gives; numbered entries keep their N.
 * A name that fits no setting is left out and added to `unknown`: the environment is shared
 * with other programs, so it is warned about at start-up (unknown-variables.ts), not refused.
 */
export function environmentTree(env: Record<string, string | undefined>, unknown: string[] = []): Tree {
  const tree: Tree = {};
  const entry = (list: string, n: number) => {
    const map = (tree[list] ??= {}) as Record<number, Tree>;
    return (map[n] ??= {});
  };
  for (const [name, value] of Object.entries(env)) {
    if (!name.startsWith('GATEWAY_') || value === undefined || value === '') continue;
    const rest = name.slice('GATEWAY_'.length);
    let m: RegExpExecArray | null;
    if (TOP_LEVEL_KEYS.includes(rest.toLowerCase() as never)) tree[rest.toLowerCase()] = value;
    else if (rest.startsWith('FORWARD_AUTH_') && FORWARD_AUTH_KEYS.includes(rest.slice(13).toLowerCase() as never))
      ((tree.forward_auth ??= {}) as Tree)[rest.slice(13).toLowerCase()] = value;
    else if ((m = /^URLS_(\d+)_(PATTERN|TARGET)$/.exec(rest))) entry('urls', Number(m[1]))[m[2]!.toLowerCase()] = value;
    else if ((m = /^URLS_(\d+)_PLUGINS_(.+)_ENABLED$/.exec(rest)))
      ((entry('urls', Number(m[1])).plugins ??= {}) as Tree)[m[2]!.toLowerCase()] = { enabled: value };
    else if ((m = /^PLUGINS_(\d+)_(TYPE|ID|ENABLED)$/.exec(rest))) entry('plugins', Number(m[1]))[m[2]!.toLowerCase()] = value;
    else if ((m = /^PLUGINS_(\d+)_PARAMETERS_(.+)$/.exec(rest))) {
      const params = (entry('plugins', Number(m[1])).parameters ??= {}) as Tree;
      const field = m[2]!.toLowerCase();
      // Arrays are FIELD_0, FIELD_1, …; a known field name wins over a numeric suffix.
      const item = /^(.+)_(\d+)$/.exec(field);
      if (item && !PLUGIN_FIELDS.includes(field) && PLUGIN_FIELDS.includes(item[1]!)) {
        const list = (params[item[1]!] ??= []);
        // Beside `_AUDIENCE` itself (a string, refused as not a list), the items have nowhere to go.
        if (Array.isArray(list)) list[Number(item[2])] = value;
      } else params[field] = value;
    } else unknown.push(name);
  }
  return tree;
}

/** Reads a YAML or JSON file (JSON is YAML) with the same structure as the environment. */
export function fileTree(path: string): Tree {
  let parsed: unknown;
  try {
    // Loaded only for a file: a gateway configured by environment does not carry a YAML parser.
    const { parse } = createRequire(import.meta.url)('yaml') as typeof import('yaml');
    parsed = parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new GatewayConfigError(path, `cannot be read as YAML or JSON (${(error as Error).message.split('\n')[0]})`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new GatewayConfigError(path, 'must hold a map at the top');
  return parsed as Tree;
}

/**
 * The file (if any) with the `GATEWAY_*` variables over it: the environment wins, as in a
 * twelve-factor service, so one file can serve several deployments that differ by a variable.
 * `unknownVariables` lists the `GATEWAY_*` names that fit no setting.
 */
export function loadGatewaySetup(options: { env?: Record<string, string | undefined>; file?: string } = {}): {
  config: GatewayConfig;
  unknownVariables: string[];
  /** From the standard OTEL_* variables (never the file); undefined: no tracing. */
  tracing: TracingSettings | undefined;
} {
  const env = options.env ?? process.env;
  const unknownVariables: string[] = [];
  const fromEnv = environmentTree(env, unknownVariables);
  const { tree, key } = options.file ? mergeSources(fileTree(options.file), fromEnv) : { tree: fromEnv, key: envKey };
  const config = readGatewayConfig(tree, key);
  const { settings, problems } = readTracingSettings(env);
  if (problems[0]) throw new GatewayConfigError(problems[0].variable, problems[0].rule);
  return { config, unknownVariables, tracing: settings };
}

export function loadGatewayConfig(options: { env?: Record<string, string | undefined>; file?: string } = {}): GatewayConfig {
  return loadGatewaySetup(options).config;
}

export function readGatewayConfig(tree: Tree, key: KeyNamer): GatewayConfig {
  for (const name of Object.keys(tree)) {
    if (![...TOP_LEVEL_KEYS, ...SECTIONS].includes(name as never)) throw new GatewayConfigError(key([name]), 'is not a gateway setting');
    if (name !== 'trusted_proxies' && !SECTIONS.includes(name as never)) refuseNonScalar(tree[name], key([name]));
  }
  const port = readPort(tree.port, gatewayDefaults.port, key(['port']));
  const adminPort = readPort(tree.admin_port, gatewayDefaults.adminPort, key(['admin_port']));
  if (port === adminPort && port !== 0)
    throw new GatewayConfigError(key(['admin_port']), 'must differ from port: the admin endpoints never share the proxy port');
  const host = tree.host === undefined ? gatewayDefaults.host : String(tree.host);
  const upstreamTimeoutMs = tree.upstream_timeout === undefined ? gatewayDefaults.upstreamTimeoutMs : parseDuration(String(tree.upstream_timeout));
  if (upstreamTimeoutMs === undefined) throw new GatewayConfigError(key(['upstream_timeout']), 'must be a duration such as 500ms, 5s or 1m');
  const logLevel = (tree.log_level ?? gatewayDefaults.logLevel) as GatewayConfig['logLevel'];
  if (!LOG_LEVELS.includes(logLevel)) throw new GatewayConfigError(key(['log_level']), `must be one of ${LOG_LEVELS.join(', ')}`);
  const workers = tree.workers === undefined ? gatewayDefaults.workers : parseWorkers(String(tree.workers));
  if (workers === undefined) throw new GatewayConfigError(key(['workers']), `must be ${WORKERS_RULE}`);
  // Workers share a port by its number: two servers asking for port 0 would get the same one.
  if (workers > 1 && port === 0 && adminPort === 0) {
    throw new GatewayConfigError(
      key(['workers']),
      'must be 1 when port and admin_port are both 0 (workers share each port by its number); give one of them a number',
    );
  }

  const plugins = readPluginEntries(tree.plugins, key);
  const urls = readUrlRules(
    tree.urls,
    key,
    plugins.map((p) => p.id),
  );
  const defaultTarget = tree.default_target === undefined ? undefined : readUrl(tree.default_target, key(['default_target']));
  const requests = readRequestPolicy(tree, key);
  const listener = readListenerSettings(tree, key, requests.headersTimeoutMs, upstreamTimeoutMs);
  const shutdown = {
    delayMs: readShutdownDuration(tree.shutdown_delay, gatewayDefaults.shutdownDelayMs, key(['shutdown_delay']), true),
    timeoutMs: readShutdownDuration(tree.shutdown_timeout, gatewayDefaults.shutdownTimeoutMs, key(['shutdown_timeout']), false),
  };
  const keys = { port: key(['port']), adminPort: key(['admin_port']) };
  const forwardAuth = readForwardAuth(tree.forward_auth, key, { ports: [port, adminPort], workers, plugins, urls });
  return {
    port,
    adminPort,
    host,
    ...(defaultTarget ? { defaultTarget } : {}),
    upstreamTimeoutMs,
    logLevel,
    workers,
    urls,
    plugins,
    requests,
    listener,
    shutdown,
    ...(forwardAuth ? { forwardAuth } : {}),
    keys,
  };
}

function readShutdownDuration(value: unknown, fallback: number, name: string, zeroAllowed: boolean): number {
  if (value === undefined) return fallback;
  if (zeroAllowed && String(value).trim() === '0') return 0;
  const ms = parseDuration(String(value));
  if (ms === undefined || ms > MAX_SHUTDOWN_MS)
    throw new GatewayConfigError(name, `must be a duration such as 500ms, 5s or 1m, at most 5m${zeroAllowed ? ', or 0' : ''}`);
  return ms;
}
