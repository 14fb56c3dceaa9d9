import { TOKEN_TYPE, TOKEN_TYPE_URIS, type TokenTypeUri } from '../../../oauth/tokens/token-types.ts';
import { GatewayConfigError, type KeyNamer } from '../../settings/config-error.ts';
import { CLIENT_AUTH_VALUES, type PluginClient, readClientParams } from './client-params.ts';
import { convert, type Kind } from './param-kinds.ts';

export const ACTOR_MODES = ['oauth_client', 'gate_svid', 'request_actor'] as const;
export const SVID_SOURCES = ['file', 'env', 'workload_api'] as const;

/** Spec §2.1, plus the delegated-token cache switches; every default lives here. */
export const FIELDS = {
  service_base_url: { kind: 'url' },
  service_org_id: { kind: 'text' },
  subject_header_with_token: { kind: 'header' },
  subject_cookie_with_token: { kind: 'cookie' },
  subject_token_type: { kind: TOKEN_TYPE_URIS },
  subject_strip_after_exchange: { kind: 'boolean', default: true },
  actor_mode: { kind: ACTOR_MODES },
  actor_svid_source: { kind: SVID_SOURCES },
  actor_svid_file_path: { kind: 'path' },
  actor_svid_file_reload: { kind: 'duration', default: 30_000 },
  actor_svid_env_var: { kind: 'env-var' },
  actor_workload_api_socket: { kind: 'unix-socket' },
  actor_workload_api_audience: { kind: 'text' },
  actor_header_with_token: { kind: 'header' },
  actor_cookie_with_token: { kind: 'cookie' },
  actor_strip_after_exchange: { kind: 'boolean', default: true },
  oauth_client_id: { kind: 'text' },
  oauth_client_secret: { kind: 'text' },
  oauth_client_private_key_file: { kind: 'path' },
  oauth_client_key_id: { kind: 'text' },
  oauth_client_auth: { kind: CLIENT_AUTH_VALUES },
  requested_token_type: { kind: TOKEN_TYPE_URIS },
  scope: { kind: 'text' },
  audience: { kind: 'list' },
  resource: { kind: 'uri-list' },
  requested_expires_in: { kind: 'count' },
  output_header: { kind: 'header', default: 'Authorization' },
  output_prefix: { kind: 'text', default: 'Bearer ' },
  upstream_request_timeout: { kind: 'duration', default: 5_000 },
  cache_delegated_tokens: { kind: 'boolean', default: true },
  cache_max_entries: { kind: 'count', default: 10_000 },
  // How long a revocation at the service may go unseen by a cached delegated token.
  cache_max_ttl: { kind: 'duration', default: 60_000 },
} as const satisfies Record<string, { kind: Kind; default?: unknown }>;

export type FieldName = keyof typeof FIELDS;
export const FIELD_NAMES = Object.keys(FIELDS) as FieldName[];

export interface TokenExchangeParams {
  serviceBaseUrl: string;
  serviceOrgId?: string;
  subject: { header?: string; cookie?: string; tokenType?: TokenTypeUri; strip: boolean };
  actor:
    | { mode: 'oauth_client' }
    | { mode: 'gate_svid'; source: 'file'; filePath: string; reloadMs: number }
    | { mode: 'gate_svid'; source: 'env'; envVar: string }
    | { mode: 'gate_svid'; source: 'workload_api'; socket: string; audience?: string }
    | { mode: 'request_actor'; header?: string; cookie?: string; strip: boolean };
  client?: PluginClient;
  requestedTokenType: TokenTypeUri;
  scope?: string;
  audience: string[];
  resource: string[];
  requestedExpiresIn?: number;
  outputHeader: string;
  outputPrefix: string;
  timeoutMs: number;
  cache: { enabled: boolean; maxEntries: number; maxTtlMs: number };
}

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'trailer', 'host', 'content-length']);

/** Validates one token-exchange plugin's parameters; throws naming the first key at fault. */
export function readTokenExchangeParams(raw: unknown, path: (string | number)[], key: KeyNamer): TokenExchangeParams {
  const at = (field: string) => key([...path, field]);
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new GatewayConfigError(key(path), 'must be a map of parameters');
  const given = raw as Record<string, unknown>;
  for (const name of Object.keys(given)) {
    if (!(name in FIELDS)) throw new GatewayConfigError(at(name), `is not a token-exchange parameter (known: ${FIELD_NAMES.join(', ')})`);
  }
  // Defaults are already typed; only what the operator wrote is converted (and checked).
  const read = (name: FieldName) =>
    given[name] === undefined ? (FIELDS[name] as { default?: unknown }).default : convert(given[name], FIELDS[name].kind, at(name));
  const present = (name: FieldName) => given[name] !== undefined;
  const require = (name: FieldName, when: string) => {
    if (!present(name)) throw new GatewayConfigError(at(name), `is required ${when}`);
    return read(name);
  };
  const forbid = (names: FieldName[], when: string) => {
    const found = names.find(present);
    if (found) throw new GatewayConfigError(at(found), `applies only ${when}`);
  };
  const oneOf = (a: FieldName, b: FieldName, what: string) => {
    if (present(a) && present(b))
      throw new GatewayConfigError(at(b), `cannot be set together with ${at(a)}: ${what} comes from a header or a cookie, not both`);
    if (!present(a) && !present(b)) throw new GatewayConfigError(at(a), `is required (or ${at(b)}): where ${what} is read from`);
  };

  const serviceBaseUrl = require('service_base_url', '') as string;
  oneOf('subject_header_with_token', 'subject_cookie_with_token', 'the subject token');
  const mode = require('actor_mode', '') as TokenExchangeParams['actor']['mode'];
  const svidFields: FieldName[] = [
    'actor_svid_source',
    'actor_svid_file_path',
    'actor_svid_file_reload',
    'actor_svid_env_var',
    'actor_workload_api_socket',
    'actor_workload_api_audience',
  ];
  const requestActorFields: FieldName[] = ['actor_header_with_token', 'actor_cookie_with_token', 'actor_strip_after_exchange'];
  let actor: TokenExchangeParams['actor'];
  if (mode === 'gate_svid') {
    forbid(requestActorFields, 'with actor_mode=request_actor');
    const source = require('actor_svid_source', 'with actor_mode=gate_svid') as 'file' | 'env' | 'workload_api';
    if (source === 'file') {
      forbid(['actor_svid_env_var', 'actor_workload_api_socket', 'actor_workload_api_audience'], 'with another actor_svid_source');
      actor = {
        mode,
        source,
        filePath: require('actor_svid_file_path', 'with actor_svid_source=file') as string,
        reloadMs: read('actor_svid_file_reload') as number,
      };
    } else if (source === 'env') {
      forbid(['actor_svid_file_path', 'actor_svid_file_reload', 'actor_workload_api_socket', 'actor_workload_api_audience'], 'with another actor_svid_source');
      actor = { mode, source, envVar: require('actor_svid_env_var', 'with actor_svid_source=env') as string };
    } else {
      forbid(['actor_svid_file_path', 'actor_svid_file_reload', 'actor_svid_env_var'], 'with another actor_svid_source');
      const audience = present('actor_workload_api_audience') ? (read('actor_workload_api_audience') as string) : undefined;
      actor = {
        mode,
        source,
        socket: require('actor_workload_api_socket', 'with actor_svid_source=workload_api') as string,
        ...(audience ? { audience } : {}),
      };
    }
  } else if (mode === 'request_actor') {
    forbid(svidFields, 'with actor_mode=gate_svid');
    oneOf('actor_header_with_token', 'actor_cookie_with_token', 'the actor token');
    actor = {
      mode,
      header: read('actor_header_with_token') as string | undefined,
      cookie: read('actor_cookie_with_token') as string | undefined,
      strip: read('actor_strip_after_exchange') as boolean,
    };
  } else {
    forbid([...svidFields, ...requestActorFields], `with another actor_mode than ${mode}`);
    actor = { mode };
  }

  const client = readClientParams({ present, read, at }, mode);
  const requestedTokenType = require('requested_token_type', '') as TokenExchangeParams['requestedTokenType'];
  if (requestedTokenType === TOKEN_TYPE.jwt) {
    forbid(['scope', 'audience', 'resource'], 'with requested_token_type access_token (the service refuses them for jwt output)');
  }
  const outputHeader = read('output_header') as string;
  if (HOP_BY_HOP.has(outputHeader.toLowerCase())) throw new GatewayConfigError(at('output_header'), 'must not be a hop-by-hop or framing header');

  return {
    serviceBaseUrl: serviceBaseUrl.replace(/\/+$/, ''),
    ...(present('service_org_id') ? { serviceOrgId: read('service_org_id') as string } : {}),
    subject: {
      header: read('subject_header_with_token') as string | undefined,
      cookie: read('subject_cookie_with_token') as string | undefined,
      tokenType: read('subject_token_type') as TokenExchangeParams['subject']['tokenType'],
      strip: read('subject_strip_after_exchange') as boolean,
    },
    actor,
    ...(client ? { client } : {}),
    requestedTokenType,
    ...(present('scope') ? { scope: read('scope') as string } : {}),
    audience: (read('audience') as string[] | undefined) ?? [],
    resource: (read('resource') as string[] | undefined) ?? [],
    ...(present('requested_expires_in') ? { requestedExpiresIn: read('requested_expires_in') as number } : {}),
    outputHeader,
    outputPrefix: read('output_prefix') as string,
    timeoutMs: read('upstream_request_timeout') as number,
    cache: { enabled: read('cache_delegated_tokens') as boolean, maxEntries: read('cache_max_entries') as number, maxTtlMs: read('cache_max_ttl') as number },
  };
}
