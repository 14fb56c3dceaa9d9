import { connect } from 'node:net';
import { pino } from 'pino';
import { gatewayErrorStatus } from '../../../src/errors/catalogue.ts';
import { readGatewayConfig } from '../../../src/gateway/config/gateway-config.ts';
import { type RunningGateway, startGateway } from '../../../src/gateway/lifecycle.ts';
import { tokenExchangePlugin } from '../../../src/gateway/plugins/token-exchange/handler.ts';
import { fileKey } from '../../../src/gateway/settings/config-error.ts';
import { backends } from '../../helpers/backends.ts';
import { type ClientCredentials, createPerson, JWT_TYPE, mintPersonToken, registerClient } from '../../helpers/oauth.ts';
import { type RecordingUpstream, startRecordingUpstream } from '../../helpers/recording-upstream.ts';
import { startTestService, type TestService } from '../../helpers/service.ts';

/**
 * Gateways in front of one recording upstream, with the real service as token endpoint:
 *  - header: the subject in Authorization; the plugin on, except under `*\/open/*`;
 *  - cookie: the subject in the `session` cookie; the plugin off, except for `*\/api` and `*\/api/*`;
 *  - lenient: as header, with every path policy that is not the default (LENIENT_PATHS).
 * Each has a guarded and an unguarded part, so a path trick has somewhere to go.
 */
export type Arrangement = 'header' | 'cookie' | 'lenient';
export const LENIENT_PATHS = { path_escaped_slashes: 'unescape', path_semicolons: 'keep', path_merge_slashes: false };

export interface FuzzStack {
  t: TestService;
  client: ClientCredentials;
  personId: string;
  /** A real person JWT, the token the gateway must never let through to a guarded route. */
  token: string;
  upstream: RecordingUpstream;
  gateways: Record<Arrangement, RunningGateway>;
  close(): Promise<void>;
}

const silent = pino({ level: 'silent' });

/**
 * Whether the plugin must run for this normalised path (docs/gateway.md, "Case"): the plugin
 * runs when the exact or the case-folded rule match turns it on.
 */
export function guarded(arrangement: Arrangement, path: string): boolean {
  if (arrangement !== 'cookie') return !/^\/open\//.test(path);
  return /^\/api(\/.*)?$/i.test(path);
}

export async function startFuzzStack(): Promise<FuzzStack> {
  const t = await startTestService(backends()[0]!, { TESSERA_DEV: '1' });
  const org = await t.org();
  const client = await registerClient(t, org);
  const personId = await createPerson(t, org);
  const token = await mintPersonToken(t, org, personId, { scope: 'orders:read' });
  const upstream = await startRecordingUpstream();
  const gateway = async (arrangement: Arrangement) => {
    const header = arrangement !== 'cookie';
    const config = readGatewayConfig(
      {
        port: 0,
        admin_port: 0,
        default_target: upstream.url,
        // Short, so a request the gateway waits on ends well inside the test's own deadline.
        headers_timeout: '1s',
        body_timeout: '1s',
        ...(arrangement === 'lenient' ? LENIENT_PATHS : {}),
        urls: header
          ? [{ pattern: '*/open/*', target: upstream.url, plugins: { tx: { enabled: false } } }]
          : [
              { pattern: '*/api', target: upstream.url, plugins: { tx: { enabled: true } } },
              { pattern: '*/api/*', target: upstream.url, plugins: { tx: { enabled: true } } },
            ],
        plugins: [
          {
            type: 'token-exchange',
            id: 'tx',
            enabled: header,
            parameters: {
              service_base_url: t.url,
              actor_mode: 'oauth_client',
              oauth_client_id: client.id,
              oauth_client_secret: client.secret,
              requested_token_type: JWT_TYPE,
              ...(header ? { subject_header_with_token: 'Authorization' } : { subject_cookie_with_token: 'session' }),
            },
          },
        ],
      },
      fileKey,
    );
    const plugin = config.plugins[0]!;
    return startGateway(config, [tokenExchangePlugin(plugin.id, plugin.enabled, plugin.params)], silent);
  };
  const gateways = { header: await gateway('header'), cookie: await gateway('cookie'), lenient: await gateway('lenient') };
  return {
    t,
    client,
    personId,
    token,
    upstream,
    gateways,
    async close() {
      for (const running of Object.values(gateways)) await running.close();
      await upstream.close();
      await t.close();
    },
  };
}

export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * Writes the bytes as they are (fetch and http.request would normalise or refuse much of what
 * is sent here) and reads the first answer; fails when none comes within `deadlineMs`.
 */
export function exchangeRaw(url: string, bytes: Buffer, deadlineMs = 5_000): Promise<RawAnswer> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer within ${deadlineMs} ms`));
    }, deadlineMs);
    const finish = () => {
      clearTimeout(timer);
      const answer = parseAnswer(Buffer.concat(chunks));
      if (answer) resolve(answer);
      else reject(new Error(`no HTTP answer, got ${JSON.stringify(Buffer.concat(chunks).toString('latin1').slice(0, 200))}`));
    };
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      // Keep-alive answers do not close: stop as soon as one whole answer is in.
      if (parseAnswer(Buffer.concat(chunks))) socket.destroy();
    });
    socket.on('error', () => socket.destroy());
    socket.on('close', finish);
    socket.write(bytes);
  });
}

/** The first complete final response in `data` (interim 1xx answers skipped), or undefined while it is incomplete. */
function parseAnswer(data: Buffer): RawAnswer | undefined {
  const end = data.indexOf('\r\n\r\n');
  if (end === -1) return undefined;
  const [statusLine = '', ...lines] = data.subarray(0, end).toString('latin1').split('\r\n');
  const status = Number(statusLine.split(' ')[1] ?? 0);
  const rest = data.subarray(end + 4);
  if (status >= 100 && status < 200) return parseAnswer(rest);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  let body: Buffer | undefined;
  if (headers['content-length'] !== undefined) {
    const length = Number(headers['content-length']);
    body = rest.length >= length ? rest.subarray(0, length) : undefined;
  } else if (/chunked/i.test(headers['transfer-encoding'] ?? '')) {
    body = unchunk(rest);
  } else body = rest;
  return body && { status, headers, body: body.toString('utf8') };
}

function unchunk(data: Buffer): Buffer | undefined {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const eol = data.indexOf('\r\n', at);
    if (eol === -1) return undefined;
    const size = Number.parseInt(data.subarray(at, eol).toString('latin1'), 16);
    if (size === 0) return Buffer.concat(parts);
    if (data.length < eol + 2 + size + 2) return undefined;
    parts.push(data.subarray(eol + 2, eol + 2 + size));
    at = eol + 2 + size + 2;
  }
}

/**
 * What an answer the gateway wrote itself must be: the envelope with one catalogued GATEWAY_*
 * code and that code's documented status. Returns the code; throws a description otherwise.
 */
export function gatewayCode(answer: RawAnswer): string {
  let code: unknown;
  let httpcode: unknown;
  try {
    ({ code, httpcode } = (JSON.parse(answer.body) as { errors: { code: unknown; httpcode: unknown }[] }).errors[0]!);
  } catch {
    throw new Error(`${answer.status} is not the gateway's error envelope: ${answer.body.slice(0, 200)}`);
  }
  const documented = gatewayErrorStatus[code as keyof typeof gatewayErrorStatus];
  if (documented === undefined) throw new Error(`${String(code)} is not a catalogued gateway code`);
  if (documented !== answer.status || httpcode !== answer.status) throw new Error(`${String(code)} came with ${answer.status}, documented ${documented}`);
  return code as string;
}
