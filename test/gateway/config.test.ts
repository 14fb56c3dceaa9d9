import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { loadGatewayConfig, loadGatewaySetup } from '../../src/gateway/config/gateway-config.ts';
import { unknownVariableWarnings } from '../../src/gateway/config/unknown-variables.ts';
import { GatewayConfigError } from '../../src/gateway/settings/config-error.ts';
import { parseDuration } from '../../src/gateway/settings/duration.ts';

const JWT = 'urn:ietf:params:oauth:token-type:jwt';
const AT = 'urn:ietf:params:oauth:token-type:access_token';
const P = 'GATEWAY_PLUGINS_0_PARAMETERS_';

/** A valid oauth_client plugin, as environment variables. */
const base = {
  GATEWAY_PLUGINS_0_TYPE: 'token-exchange',
  [`${P}SERVICE_BASE_URL`]: 'http://127.0.0.1:8080/',
  [`${P}SUBJECT_HEADER_WITH_TOKEN`]: 'Authorization',
  [`${P}ACTOR_MODE`]: 'oauth_client',
  [`${P}OAUTH_CLIENT_ID`]: 'cli_gateway',
  [`${P}OAUTH_CLIENT_SECRET`]: 'tcs_secret',
  [`${P}REQUESTED_TOKEN_TYPE`]: AT,
};

function refusal(env: Record<string, string>): string {
  try {
    loadGatewayConfig({ env });
  } catch (error) {
    assert.ok(error instanceof GatewayConfigError, String(error));
    return error.message;
  }
  assert.fail('the configuration was accepted');
}

describe('Gateway configuration', () => {
  it('reads an oauth_client plugin with every default of spec §2.1', () => {
    const config = loadGatewayConfig({ env: base });
    assert.deepEqual(
      [config.port, config.adminPort, config.host, config.urls, config.defaultTarget, config.upstreamTimeoutMs],
      [8000, 8001, '127.0.0.1', [], undefined, 30_000],
    );
    assert.equal(config.logLevel, 'info');
    assert.deepEqual(config.plugins, [
      {
        id: 'token-exchange-0',
        type: 'token-exchange',
        enabled: true,
        params: {
          serviceBaseUrl: 'http://127.0.0.1:8080',
          subject: { header: 'Authorization', cookie: undefined, tokenType: undefined, strip: true },
          actor: { mode: 'oauth_client' },
          client: { id: 'cli_gateway', method: 'client_secret_basic', secret: 'tcs_secret' },
          requestedTokenType: AT,
          audience: [],
          resource: [],
          outputHeader: 'Authorization',
          outputPrefix: 'Bearer ',
          timeoutMs: 5_000,
          cache: { enabled: true, maxEntries: 10_000, maxTtlMs: 60_000 },
        },
        keys: {
          entry: 'GATEWAY_PLUGINS_0',
          clientId: `${P}OAUTH_CLIENT_ID`,
          clientSecret: `${P}OAUTH_CLIENT_SECRET`,
          clientKeyFile: `${P}OAUTH_CLIENT_PRIVATE_KEY_FILE`,
          clientAuth: `${P}OAUTH_CLIENT_AUTH`,
          subjectCookie: `${P}SUBJECT_COOKIE_WITH_TOKEN`,
          actorMode: `${P}ACTOR_MODE`,
          outputHeader: `${P}OUTPUT_HEADER`,
        },
      },
    ]);
  });

  it('reads every actor mode, arrays as FIELD_j, and runs plugins in the order of N', () => {
    const config = loadGatewayConfig({
      env: {
        GATEWAY_PORT: '9000',
        GATEWAY_DEFAULT_TARGET: 'http://127.0.0.1:9100',
        GATEWAY_URLS_0_PATTERN: 'api.example.com/orders/*',
        GATEWAY_URLS_0_TARGET: 'http://orders:8080',
        GATEWAY_URLS_0_PLUGINS_SVID_ENABLED: 'false',
        GATEWAY_PLUGINS_10_TYPE: 'token-exchange',
        GATEWAY_PLUGINS_10_ID: 'Person',
        GATEWAY_PLUGINS_10_PARAMETERS_SERVICE_BASE_URL: 'http://svc',
        GATEWAY_PLUGINS_10_PARAMETERS_SUBJECT_COOKIE_WITH_TOKEN: 'session',
        GATEWAY_PLUGINS_10_PARAMETERS_ACTOR_MODE: 'request_actor',
        GATEWAY_PLUGINS_10_PARAMETERS_ACTOR_HEADER_WITH_TOKEN: 'X-Actor',
        GATEWAY_PLUGINS_10_PARAMETERS_REQUESTED_TOKEN_TYPE: AT,
        GATEWAY_PLUGINS_10_PARAMETERS_AUDIENCE_0: 'orders',
        GATEWAY_PLUGINS_10_PARAMETERS_AUDIENCE_1: 'billing',
        GATEWAY_PLUGINS_10_PARAMETERS_RESOURCE_0: 'https://orders.example/api',
        GATEWAY_PLUGINS_10_PARAMETERS_UPSTREAM_REQUEST_TIMEOUT: '750ms',
        GATEWAY_PLUGINS_2_TYPE: 'token-exchange',
        GATEWAY_PLUGINS_2_ID: 'svid',
        GATEWAY_PLUGINS_2_PARAMETERS_SERVICE_BASE_URL: 'http://svc',
        GATEWAY_PLUGINS_2_PARAMETERS_SUBJECT_HEADER_WITH_TOKEN: 'Authorization',
        GATEWAY_PLUGINS_2_PARAMETERS_ACTOR_MODE: 'gate_svid',
        GATEWAY_PLUGINS_2_PARAMETERS_ACTOR_SVID_SOURCE: 'workload_api',
        GATEWAY_PLUGINS_2_PARAMETERS_ACTOR_WORKLOAD_API_SOCKET: 'unix:///run/spire/agent.sock',
        GATEWAY_PLUGINS_2_PARAMETERS_REQUESTED_TOKEN_TYPE: JWT,
      },
    });
    assert.deepEqual(
      config.plugins.map((p) => p.id),
      ['svid', 'person'],
      'N=2 runs before N=10; ids are lower-cased',
    );
    assert.deepEqual(config.plugins[0]!.params.actor, { mode: 'gate_svid', source: 'workload_api', socket: 'unix:///run/spire/agent.sock' });
    assert.deepEqual(config.plugins[1]!.params.actor, { mode: 'request_actor', header: 'X-Actor', cookie: undefined, strip: true });
    assert.deepEqual(config.plugins[1]!.params.audience, ['orders', 'billing']);
    assert.equal(config.plugins[1]!.params.timeoutMs, 750);
    assert.deepEqual(config.urls, [{ pattern: 'api.example.com/orders/*', target: 'http://orders:8080', plugins: { svid: false } }]);
    assert.deepEqual([config.port, config.defaultTarget], [9000, 'http://127.0.0.1:9100']);
  });

  it('reads the same structure from a YAML file, naming keys by their path there', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gw-'));
    after(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'gateway.yaml');
    writeFileSync(
      file,
      `plugins:\n  - type: token-exchange\n    parameters:\n      service_base_url: http://127.0.0.1:8080\n      subject_header_with_token: Authorization\n      actor_mode: gate_svid\n      actor_svid_source: file\n      actor_svid_file_path: /run/svid.jwt\n      actor_svid_file_reload: 10s\n      requested_token_type: ${JWT}\n`,
    );
    assert.deepEqual(loadGatewayConfig({ file }).plugins[0]!.params.actor, { mode: 'gate_svid', source: 'file', filePath: '/run/svid.jwt', reloadMs: 10_000 });
    writeFileSync(file, 'plugins:\n  - type: token-exchange\n    parameters:\n      actor_mode: oauth_client\n');
    assert.throws(() => loadGatewayConfig({ file }), /^GatewayConfigError: plugins\[0\]\.parameters\.service_base_url: is required/);
    writeFileSync(file, 'plugins: [unclosed');
    assert.throws(() => loadGatewayConfig({ file }), /cannot be read as YAML or JSON/);
  });

  const invalid: [string, Record<string, string | undefined>, RegExp][] = [
    ['an unknown parameter', { [`${P}SUBJECT_HEADER`]: 'X' }, /^GATEWAY_PLUGINS_0_PARAMETERS_SUBJECT_HEADER: is not a token-exchange parameter/],
    ['a missing required field', { [`${P}SERVICE_BASE_URL`]: undefined }, /^GATEWAY_PLUGINS_0_PARAMETERS_SERVICE_BASE_URL: is required/],
    [
      'both subject header and cookie',
      { [`${P}SUBJECT_COOKIE_WITH_TOKEN`]: 'session' },
      /^GATEWAY_PLUGINS_0_PARAMETERS_SUBJECT_COOKIE_WITH_TOKEN: cannot be set together with GATEWAY_PLUGINS_0_PARAMETERS_SUBJECT_HEADER_WITH_TOKEN/,
    ],
    [
      'neither subject header nor cookie',
      { [`${P}SUBJECT_HEADER_WITH_TOKEN`]: undefined },
      /^GATEWAY_PLUGINS_0_PARAMETERS_SUBJECT_HEADER_WITH_TOKEN: is required \(or GATEWAY_PLUGINS_0_PARAMETERS_SUBJECT_COOKIE_WITH_TOKEN\)/,
    ],
    ['a bad actor mode', { [`${P}ACTOR_MODE`]: 'client' }, /^GATEWAY_PLUGINS_0_PARAMETERS_ACTOR_MODE: must be one of oauth_client, gate_svid, request_actor$/],
    [
      'a bad duration',
      { [`${P}UPSTREAM_REQUEST_TIMEOUT`]: '5 seconds' },
      /^GATEWAY_PLUGINS_0_PARAMETERS_UPSTREAM_REQUEST_TIMEOUT: must be a duration such as 500ms, 5s or 1m$/,
    ],
    [
      'scope with jwt output',
      { [`${P}REQUESTED_TOKEN_TYPE`]: JWT, [`${P}SCOPE`]: 'orders:read' },
      /^GATEWAY_PLUGINS_0_PARAMETERS_SCOPE: applies only with requested_token_type access_token/,
    ],
    [
      'audience with jwt output',
      { [`${P}REQUESTED_TOKEN_TYPE`]: JWT, [`${P}AUDIENCE_0`]: 'orders' },
      /^GATEWAY_PLUGINS_0_PARAMETERS_AUDIENCE: applies only with requested_token_type access_token/,
    ],
    ['a relative resource', { [`${P}RESOURCE_0`]: '/orders' }, /^GATEWAY_PLUGINS_0_PARAMETERS_RESOURCE: item 0 must be an absolute URI/],
    [
      'a duplicate plugin id',
      {
        GATEWAY_PLUGINS_0_ID: 'TX',
        ...Object.fromEntries(Object.entries(base).map(([k, v]) => [k.replace('PLUGINS_0', 'PLUGINS_1'), v])),
        GATEWAY_PLUGINS_1_ID: 'tx',
      },
      /^GATEWAY_PLUGINS_1_ID: repeats the id "tx"/,
    ],
    [
      'oauth_client without a client',
      { [`${P}OAUTH_CLIENT_ID`]: undefined, [`${P}OAUTH_CLIENT_SECRET`]: undefined },
      /^GATEWAY_PLUGINS_0_PARAMETERS_OAUTH_CLIENT_ID: is required with actor_mode=oauth_client/,
    ],
    [
      'a client id without its secret',
      { [`${P}OAUTH_CLIENT_SECRET`]: undefined },
      /^GATEWAY_PLUGINS_0_PARAMETERS_OAUTH_CLIENT_ID: needs one of GATEWAY_PLUGINS_0_PARAMETERS_OAUTH_CLIENT_SECRET or GATEWAY_PLUGINS_0_PARAMETERS_OAUTH_CLIENT_PRIVATE_KEY_FILE set/,
    ],
    [
      'gate_svid without a source',
      { [`${P}ACTOR_MODE`]: 'gate_svid' },
      /^GATEWAY_PLUGINS_0_PARAMETERS_ACTOR_SVID_SOURCE: is required with actor_mode=gate_svid/,
    ],
    [
      'an SVID file with the env source',
      { [`${P}ACTOR_MODE`]: 'gate_svid', [`${P}ACTOR_SVID_SOURCE`]: 'env', [`${P}ACTOR_SVID_ENV_VAR`]: 'SVID', [`${P}ACTOR_SVID_FILE_PATH`]: '/x' },
      /^GATEWAY_PLUGINS_0_PARAMETERS_ACTOR_SVID_FILE_PATH: applies only with another actor_svid_source/,
    ],
    [
      'a request-actor header in oauth_client mode',
      { [`${P}ACTOR_HEADER_WITH_TOKEN`]: 'X-Actor' },
      /^GATEWAY_PLUGINS_0_PARAMETERS_ACTOR_HEADER_WITH_TOKEN: applies only with another actor_mode/,
    ],
    [
      'a socket that is not unix://',
      { [`${P}ACTOR_MODE`]: 'gate_svid', [`${P}ACTOR_SVID_SOURCE`]: 'workload_api', [`${P}ACTOR_WORKLOAD_API_SOCKET`]: '/run/agent.sock' },
      /must be a unix:\/\/ socket URI/,
    ],
    [
      'a non-boolean strip flag',
      { [`${P}SUBJECT_STRIP_AFTER_EXCHANGE`]: 'yes' },
      /^GATEWAY_PLUGINS_0_PARAMETERS_SUBJECT_STRIP_AFTER_EXCHANGE: must be true or false$/,
    ],
    ['a hop-by-hop output header', { [`${P}OUTPUT_HEADER`]: 'Connection' }, /^GATEWAY_PLUGINS_0_PARAMETERS_OUTPUT_HEADER: must not be a hop-by-hop/],
    ['an unknown plugin type', { GATEWAY_PLUGINS_0_TYPE: 'rate-limit' }, /^GATEWAY_PLUGINS_0_TYPE: must be token-exchange$/],
    [
      'a URL rule naming no plugin',
      { GATEWAY_URLS_0_PATTERN: 'x.example/*', GATEWAY_URLS_0_TARGET: 'http://x', GATEWAY_URLS_0_PLUGINS_NOPE_ENABLED: 'false' },
      /^GATEWAY_URLS_0_PLUGINS_NOPE_ENABLED: names no configured plugin/,
    ],
    [
      'a URL pattern without a path',
      { GATEWAY_URLS_0_PATTERN: 'x.example', GATEWAY_URLS_0_TARGET: 'http://x' },
      /^GATEWAY_URLS_0_PATTERN: must be host\[:port\]\/path/,
    ],
    ['the admin port equal to the proxy port', { GATEWAY_PORT: '9000', GATEWAY_ADMIN_PORT: '9000' }, /^GATEWAY_ADMIN_PORT: must differ from port/],
    ['no workers', { GATEWAY_WORKERS: '0' }, /^GATEWAY_WORKERS: must be an integer from 1 to 64, or auto/],
    ['more workers than 64', { GATEWAY_WORKERS: '65' }, /^GATEWAY_WORKERS: must be an integer from 1 to 64, or auto/],
    [
      'workers with both ports 0',
      { GATEWAY_WORKERS: '2', GATEWAY_PORT: '0', GATEWAY_ADMIN_PORT: '0' },
      /^GATEWAY_WORKERS: must be 1 when port and admin_port are both 0/,
    ],
  ];
  it('holds both ports to the listener policy: its defaults, the settings, and a request timeout below the headers timeout refused', () => {
    assert.deepEqual(loadGatewayConfig({ env: base }).listener, {
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 30_000,
      keepAliveTimeoutMs: 65_000,
      idleTimeoutMs: 60_000,
      maxRequestsPerConnection: 1_000,
      maxConnections: 4_096,
      maxConnectionsPerAddress: 256,
    });
    const set = {
      ...base,
      GATEWAY_HEADERS_TIMEOUT: '2s',
      GATEWAY_REQUEST_TIMEOUT: '1m',
      GATEWAY_KEEP_ALIVE_TIMEOUT: '5s',
      GATEWAY_IDLE_TIMEOUT: '2m',
      GATEWAY_MAX_REQUESTS_PER_CONNECTION: '10',
      GATEWAY_MAX_CONNECTIONS: '100',
      GATEWAY_MAX_CONNECTIONS_PER_ADDRESS: '50',
    };
    assert.deepEqual(loadGatewayConfig({ env: set }).listener, {
      headersTimeoutMs: 2_000,
      requestTimeoutMs: 60_000,
      keepAliveTimeoutMs: 5_000,
      idleTimeoutMs: 120_000,
      maxRequestsPerConnection: 10,
      maxConnections: 100,
      maxConnectionsPerAddress: 50,
    });
    assert.equal(
      loadGatewayConfig({ env: { ...base, GATEWAY_UPSTREAM_TIMEOUT: '2m' } }).listener.idleTimeoutMs,
      130_000,
      'an unset idle timeout outlasts the wait for an upstream',
    );
    assert.match(
      refusal({ ...base, GATEWAY_HEADERS_TIMEOUT: '20s', GATEWAY_REQUEST_TIMEOUT: '10s' }),
      /^GATEWAY_REQUEST_TIMEOUT: must be at least headers_timeout$/,
    );
    assert.match(
      refusal({ ...base, GATEWAY_MAX_CONNECTIONS_PER_ADDRESS: '0' }),
      /^GATEWAY_MAX_CONNECTIONS_PER_ADDRESS: must be a whole number from 1 to 1000000$/,
    );
    assert.match(
      refusal({ ...base, GATEWAY_KEEP_ALIVE_TIMEOUT: '1h' }),
      /^GATEWAY_KEEP_ALIVE_TIMEOUT: must be a duration such as 500ms, 5s or 1m, at most 10m$/,
    );
  });

  it('runs one process by default, the number given, or one per core for auto', () => {
    assert.equal(loadGatewayConfig({ env: base }).workers, 1);
    assert.equal(loadGatewayConfig({ env: { ...base, GATEWAY_WORKERS: '3' } }).workers, 3);
    assert.equal(loadGatewayConfig({ env: { ...base, GATEWAY_WORKERS: 'auto' } }).workers, availableParallelism());
  });
  for (const [name, changes, message] of invalid) {
    it(`stops at start-up on ${name}, naming the key`, () => {
      const env = { ...base, ...changes };
      for (const [k, v] of Object.entries(changes)) if (v === undefined) delete (env as Record<string, unknown>)[k];
      assert.match(refusal(env as Record<string, string>), message);
    });
  }

  it('lets GATEWAY_* variables override the file, naming each key where it came from', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gw-'));
    after(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'gateway.yaml');
    writeFileSync(
      file,
      `port: 9000\nadmin_port: 9001\ndefault_target: http://file.example\nplugins:\n  - type: token-exchange\n    id: tx\n    parameters:\n      service_base_url: http://file-service\n      subject_header_with_token: Authorization\n      actor_mode: oauth_client\n      oauth_client_id: cli_file\n      oauth_client_secret: tcs_file\n      requested_token_type: ${AT}\n      audience: [from-file]\n`,
    );
    const config = loadGatewayConfig({
      file,
      env: { GATEWAY_PORT: '9100', [`${P}OAUTH_CLIENT_SECRET`]: 'tcs_env', [`${P}AUDIENCE_0`]: 'from-env', PATH: '/usr/bin' },
    });
    assert.deepEqual([config.port, config.adminPort, config.defaultTarget], [9100, 9001, 'http://file.example']);
    assert.deepEqual(config.plugins[0]!.params.client, { id: 'cli_file', method: 'client_secret_basic', secret: 'tcs_env' });
    assert.deepEqual(config.plugins[0]!.params.audience, ['from-env'], "a list from the environment replaces the file's");
    assert.deepEqual(config.keys, { port: 'GATEWAY_PORT', adminPort: 'admin_port' });
    assert.deepEqual(config.plugins[0]!.keys, {
      entry: 'plugins[0]',
      clientId: 'plugins[0].parameters.oauth_client_id',
      clientSecret: `${P}OAUTH_CLIENT_SECRET`,
      clientKeyFile: 'plugins[0].parameters.oauth_client_private_key_file',
      clientAuth: 'plugins[0].parameters.oauth_client_auth',
      subjectCookie: 'plugins[0].parameters.subject_cookie_with_token',
      actorMode: 'plugins[0].parameters.actor_mode',
      outputHeader: 'plugins[0].parameters.output_header',
    });
    assert.throws(
      () => loadGatewayConfig({ file, env: { [`${P}ACTOR_MODE`]: 'nobody' } }),
      /^GatewayConfigError: GATEWAY_PLUGINS_0_PARAMETERS_ACTOR_MODE: must be one of/,
    );
    assert.throws(
      () => loadGatewayConfig({ file, env: { [`${P}SCOPES`]: 'x' } }),
      /^GatewayConfigError: GATEWAY_PLUGINS_0_PARAMETERS_SCOPES: is not a token-exchange parameter/,
      'an unknown key inside a known structure stays an error',
    );
  });

  it('lists GATEWAY_* variables that configure nothing, with the closest valid name', () => {
    const env = {
      ...base,
      GATEWAY_PLUGINS_0_PARAMETRS_ACTOR_MODE: 'oauth_client',
      GATEWAY_UPSTREM_TIMEOUT: '5s',
      GATEWAY_URLS_3_TARGT: 'http://x',
      GATEWAY_SVID: 'eyJ',
    };
    const { config, unknownVariables } = loadGatewaySetup({ env });
    assert.deepEqual(unknownVariables, ['GATEWAY_PLUGINS_0_PARAMETRS_ACTOR_MODE', 'GATEWAY_UPSTREM_TIMEOUT', 'GATEWAY_URLS_3_TARGT', 'GATEWAY_SVID']);
    const warnings = unknownVariableWarnings(unknownVariables, config);
    assert.match(warnings[0]!, /^GATEWAY_PLUGINS_0_PARAMETRS_ACTOR_MODE configures nothing .*did you mean GATEWAY_PLUGINS_0_PARAMETERS_ACTOR_MODE\?/);
    assert.match(warnings[1]!, /did you mean GATEWAY_UPSTREAM_TIMEOUT\?/);
    assert.match(warnings[2]!, /did you mean GATEWAY_URLS_3_TARGET\?/);
    assert.equal(warnings.length, 4);
    // A variable a plugin reads its SVID from is in use, whatever its name.
    const svid = { ...env, [`${P}ACTOR_MODE`]: 'gate_svid', [`${P}ACTOR_SVID_SOURCE`]: 'env', [`${P}ACTOR_SVID_ENV_VAR`]: 'GATEWAY_SVID' };
    delete (svid as Record<string, string>).GATEWAY_PLUGINS_0_PARAMETRS_ACTOR_MODE;
    const second = loadGatewaySetup({ env: svid });
    assert.ok(!unknownVariableWarnings(second.unknownVariables, second.config).some((w) => w.startsWith('GATEWAY_SVID ')));
  });

  it('parses durations strictly', () => {
    assert.deepEqual(['500ms', '5s', '1m', '2h', '0s', '5', '1.5s', 's'].map(parseDuration), [
      500,
      5_000,
      60_000,
      7_200_000,
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
  });
});
