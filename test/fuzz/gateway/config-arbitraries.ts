import assert from 'node:assert/strict';
import fc from 'fast-check';
import { type GatewayConfig, TOP_LEVEL_KEYS } from '../../../src/gateway/config/gateway-config.ts';
import { FIELD_NAMES } from '../../../src/gateway/plugins/token-exchange/schema.ts';
import { GatewayConfigError } from '../../../src/gateway/settings/config-error.ts';

export const JWT = 'urn:ietf:params:oauth:token-type:jwt';
export const AT = 'urn:ietf:params:oauth:token-type:access_token';
/** A client secret no rule has a reason to repeat: it must never appear in a message. */
export const SECRET = 'tcs_fuzz-secret-7f3a9c1e';

/**
 * Valid gateways, one per actor mode and SVID source, as the file's structure; each fuzz run
 * starts from one and changes a little, so the properties reach the rules deep inside.
 */
const common = { service_base_url: 'http://127.0.0.1:8080', subject_header_with_token: 'Authorization', requested_token_type: JWT };
const actors: Record<string, unknown>[] = [
  { actor_mode: 'oauth_client', oauth_client_id: 'cli_gw', oauth_client_secret: SECRET },
  { actor_mode: 'gate_svid', actor_svid_source: 'file', actor_svid_file_path: '/run/svid.jwt', actor_svid_file_reload: '10s' },
  { actor_mode: 'gate_svid', actor_svid_source: 'env', actor_svid_env_var: 'MY_SVID' },
  { actor_mode: 'gate_svid', actor_svid_source: 'workload_api', actor_workload_api_socket: 'unix:///run/agent.sock' },
  {
    actor_mode: 'request_actor',
    actor_header_with_token: 'X-Actor-Token',
    requested_token_type: AT,
    audience: ['orders', 'billing'],
    resource: ['https://orders.example/'],
    oauth_client_id: 'cli_gw',
    oauth_client_secret: SECRET,
  },
];
export const validTrees: Record<string, unknown>[] = actors.map((actor) => ({
  port: 0,
  admin_port: 0,
  default_target: 'http://127.0.0.1:9000',
  urls: [{ pattern: '*/open/*', target: 'http://127.0.0.1:9001/v1', plugins: { tx: { enabled: false } } }],
  plugins: [{ type: 'token-exchange', id: 'tx', parameters: { ...common, ...actor } }],
}));

/** The same gateways as `GATEWAY_*` variables. */
export function toEnvironment(tree: Record<string, unknown>): Record<string, string> {
  const env: Record<string, string> = {};
  const walk = (value: unknown, name: string): void => {
    if (Array.isArray(value) && value.every((item) => typeof item === 'string')) {
      for (const [j, item] of value.entries()) walk(item, `${name}_${j}`);
    } else if (typeof value === 'object' && value !== null) for (const [k, v] of Object.entries(value)) walk(v, `${name}_${k.toUpperCase()}`);
    else env[name] = String(value);
  };
  walk(tree, 'GATEWAY');
  return env;
}

/** Every value a setting takes somewhere, and values that are almost one: mixed across keys by the properties. */
const VALUES = [
  ...['0', '1', '8000', '65535', '65536', '-1', '08000', ' 8000', '1e3', '0x1F', '8000.0', '', ' ', 'true', 'false', 'TRUE', 'auto', '64', '65', '99'],
  ...['500ms', '5s', '1m', '1h', '0s', '1.5s', '5S', '10d', '999999999h', '1000000000s', '5 s', '3m', '5m', '6m', '0'],
  ...['10k', '10m', '1g', '1K', '0k', '1t', '10 m', '9999', '10000', '100'],
  ...['http://127.0.0.1:8080', 'https://svc.example/base/', 'ftp://x', 'http://', 'http://a?b=1', 'http://a#f', 'http://[::1]:1', '//svc', 'svc'],
  ...['reject', 'keep', 'unescape', 'info', 'silent', 'verbose', 'oauth_client', 'gate_svid', 'request_actor', 'file', 'env', 'workload_api'],
  ...[JWT, AT, 'urn:ietf:params:oauth:token-type:id_token', 'token-exchange', 'Token-Exchange', 'tx', 'TX', 'a b', '-x', 'x'.repeat(64)],
  ...['Authorization', 'X_Token', 'Connection', 'Content-Length', 'session', 'bad cookie', 'MY_SVID', '1VAR', 'unix:///s.sock', 'unix:/s', '/run/svid.jwt'],
  ...[
    '10.0.0.0/8',
    '10.0.0.0/33',
    'fd00::/8',
    '::1',
    '10.0.0.1, 192.168.0.0/16',
    '10.0.0.0/8,',
    'localhost',
    '1.2.3.4/-1',
    '*/api/*',
    'a.example:*/x/*',
    'a b/x',
  ],
  ...['api.example.com:8080/orders/*', '/api', 'x', '%', '\u0000', 'é', '\n', '$HOME', '*'],
];
export const settingValue = fc.oneof(
  { weight: 5, arbitrary: fc.constantFrom(...VALUES) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 12 }) },
);

/** Names of every setting in the environment, for plugin 0 and URL rule 0, and near misses of them. */
const P = 'GATEWAY_PLUGINS_0_PARAMETERS_';
export const SETTING_NAMES = [
  ...TOP_LEVEL_KEYS.map((key) => `GATEWAY_${key.toUpperCase()}`),
  ...['GATEWAY_PLUGINS_0_TYPE', 'GATEWAY_PLUGINS_0_ID', 'GATEWAY_PLUGINS_0_ENABLED', 'GATEWAY_PLUGINS_1_TYPE', 'GATEWAY_PLUGINS_1_ID'],
  ...['GATEWAY_URLS_0_PATTERN', 'GATEWAY_URLS_0_TARGET', 'GATEWAY_URLS_0_PLUGINS_TX_ENABLED', 'GATEWAY_URLS_1_PATTERN', 'GATEWAY_URLS_1_PLUGINS_TX_ENABLED'],
  ...FIELD_NAMES.map((field) => `${P}${field.toUpperCase()}`),
  ...[`${P}AUDIENCE_0`, `${P}AUDIENCE_1`, `${P}AUDIENCE_2`, `${P}RESOURCE_0`, `${P}RESOURCE_3`],
];
const nearMiss = fc.tuple(fc.constantFrom(...SETTING_NAMES), fc.nat(), fc.constantFrom('drop', 'double', 'lower', 'extra')).map(([name, at, how]) => {
  const i = 8 + (at % (name.length - 8));
  if (how === 'drop') return `${name.slice(0, i)}${name.slice(i + 1)}`;
  if (how === 'double') return `${name.slice(0, i)}${name[i]}${name.slice(i)}`;
  if (how === 'lower') return name.toLowerCase().replace('gateway_', 'GATEWAY_');
  return `${name}_X`;
});
export const variableName = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...SETTING_NAMES) },
  { weight: 2, arbitrary: nearMiss },
  { weight: 1, arbitrary: fc.stringMatching(/^GATEWAY_[A-Z0-9_]{1,20}$/) },
);

const upper = (names: readonly string[]) => names.map((n) => n.toUpperCase()).join('|');
/** The shape of every name docs/gateway.md gives a setting. */
export const DOCUMENTED = new RegExp(
  `^GATEWAY_(${upper(TOP_LEVEL_KEYS)}|URLS_\\d+_(PATTERN|TARGET|PLUGINS_[A-Z0-9_-]+_ENABLED)|PLUGINS_\\d+_(TYPE|ID|ENABLED|PARAMETERS|PARAMETERS_(${upper(FIELD_NAMES)})))$`,
);

/** The message is `<key>: <rule>`, and never carries the client secret. */
export function checkRefusal(error: unknown): GatewayConfigError {
  if (!(error instanceof GatewayConfigError)) throw error;
  assert.ok(error.message.startsWith(`${error.key}: `) && error.message.length > error.key.length + 2, error.message);
  assert.ok(!error.message.includes(SECRET), `the secret is in "${error.message}"`);
  return error;
}

/** Every list in an accepted configuration holds real values: an operator's hole must not become "undefined". */
export function checkAccepted(config: GatewayConfig): void {
  for (const plugin of config.plugins) {
    for (const list of [plugin.params.audience, plugin.params.resource]) {
      assert.ok(list.length === Object.keys(list).length, `a hole in ${JSON.stringify(list)}`);
      assert.ok(
        list.every((item) => typeof item === 'string' && item !== ''),
        JSON.stringify(list),
      );
    }
  }
  assert.ok(Number.isInteger(config.port) && config.port >= 0 && config.port <= 65_535);
  assert.ok(Number.isInteger(config.adminPort) && config.adminPort >= 0 && config.adminPort <= 65_535);
  assert.equal(typeof config.host, 'string');
  for (const ms of [config.upstreamTimeoutMs, config.requests.headersTimeoutMs, config.requests.bodyTimeoutMs])
    assert.ok(Number.isSafeInteger(ms) && ms > 0, String(ms));
}
