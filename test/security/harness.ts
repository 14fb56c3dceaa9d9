import { createServer, request as httpRequest, type Server } from 'node:http';
import { connect } from 'node:net';
import { pino } from 'pino';
import { readGatewayConfig } from '../../src/gateway/config/gateway-config.ts';
import { type RunningGateway, startGateway } from '../../src/gateway/lifecycle.ts';
import { tokenExchangePlugin } from '../../src/gateway/plugins/token-exchange/handler.ts';
import { fileKey } from '../../src/gateway/settings/config-error.ts';
import type { Backend } from '../helpers/backends.ts';
import { type ClientCredentials, createPerson, JWT_TYPE, mintPersonToken, registerClient } from '../helpers/oauth.ts';
import { type RecordingUpstream, startRecordingUpstream } from '../helpers/recording-upstream.ts';
import { startTestService, type TestOrg, type TestService } from '../helpers/service.ts';
import { type FaultableDatabase, faultableDatabase } from '../store/revocation-fault.ts';

/** Counts what reaches the service, so a test can show the gateway never asked it. */
export interface CountingRelay {
  url: string;
  count: number;
  close(): Promise<void>;
}

async function startRelay(target: string): Promise<CountingRelay> {
  const { hostname, port } = new URL(target);
  const relay: CountingRelay = { url: '', count: 0, close: async () => {} };
  const server: Server = createServer((inbound, outbound) => {
    relay.count++;
    const upstream = httpRequest({ host: hostname, port, method: inbound.method, path: inbound.url, headers: inbound.headers }, (answer) => {
      outbound.writeHead(answer.statusCode!, answer.headers);
      answer.pipe(outbound);
    });
    upstream.on('error', () => outbound.destroy());
    inbound.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  relay.url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  relay.close = () =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return relay;
}

/**
 * The four arrangements a path trick must not get through: the subject in a header or a
 * cookie, and the plugin on by default but off for /open/*, or off by default but on for
 * /api/* and for the host secure.example.com.
 */
export const ARRANGEMENTS = ['header, on except /open/*', 'header, off except /api/*', 'cookie, on except /open/*', 'cookie, off except /api/*'] as const;
export type Arrangement = (typeof ARRANGEMENTS)[number];

export interface SecurityStack {
  backend: Backend['name'];
  t: TestService;
  /** The service's database, reachable beside it to inject real faults. */
  database: FaultableDatabase;
  org: TestOrg;
  /** The gateway's own OAuth client. */
  client: ClientCredentials;
  relay: CountingRelay;
  upstream: RecordingUpstream;
  gateways: Record<Arrangement, RunningGateway>;
  /** Trusts 127.0.0.0/8 as a proxy: forwarding headers are kept and extended. */
  trusting: RunningGateway;
  /** headers_timeout and body_timeout 300ms, max_headers 20, max_body_size 1k. */
  limited: RunningGateway;
  /** Header subject, on except /open/*; its forward-auth port answers only 127.0.0.1 (forward_auth.trusted_proxies). */
  listed: RunningGateway;
  /** The frozen clock of every gateway's delegated-token cache. */
  clock: { now: number };
  /** A fresh person of the organisation and a person JWT for them. */
  person(): Promise<{ id: string; token: string }>;
  close(): Promise<void>;
}

const silent = pino({ level: 'silent' });

export async function startSecurityStack(backend: Backend): Promise<SecurityStack> {
  const database = await faultableDatabase(backend);
  const t = await startTestService(database.asBackend(), { TESSERA_DEV: '1' });
  const org = await t.org();
  const client = await registerClient(t, org);
  const relay = await startRelay(t.url);
  const upstream = await startRecordingUpstream();
  const clock = { now: Date.now() };
  const started: RunningGateway[] = [];

  // Every gateway answers forward-auth checks too (forwardAuthUrl), with the same rules as its proxy port.
  const gateway = async (subject: 'header' | 'cookie', onByDefault: boolean, extra: Record<string, unknown> = {}) => {
    const parameters = {
      service_base_url: relay.url,
      actor_mode: 'oauth_client',
      oauth_client_id: client.id,
      oauth_client_secret: client.secret,
      requested_token_type: JWT_TYPE,
      ...(subject === 'header' ? { subject_header_with_token: 'Authorization' } : { subject_cookie_with_token: 'session' }),
    };
    const urls = onByDefault
      ? [{ pattern: '*/open/*', target: upstream.url, plugins: { tx: { enabled: false } } }]
      : [
          { pattern: '*/api/*', target: upstream.url, plugins: { tx: { enabled: true } } },
          { pattern: 'secure.example.com/*', target: upstream.url, plugins: { tx: { enabled: true } } },
        ];
    const config = readGatewayConfig(
      {
        port: 0,
        admin_port: 0,
        default_target: upstream.url,
        urls,
        plugins: [{ type: 'token-exchange', id: 'tx', enabled: onByDefault, parameters }],
        forward_auth: { port: 0, ...(subject === 'cookie' ? { subject_cookie_stripped_by_proxy: true } : {}) },
        ...extra,
      },
      fileKey,
    );
    const plugin = config.plugins[0]!;
    const running = await startGateway(config, [tokenExchangePlugin(plugin.id, plugin.enabled, plugin.params, { now: () => clock.now })], silent);
    started.push(running);
    return running;
  };

  const gateways = {
    'header, on except /open/*': await gateway('header', true),
    'header, off except /api/*': await gateway('header', false),
    'cookie, on except /open/*': await gateway('cookie', true),
    'cookie, off except /api/*': await gateway('cookie', false),
  };
  return {
    backend: backend.name,
    t,
    database,
    org,
    client,
    relay,
    upstream,
    gateways,
    clock,
    trusting: await gateway('header', true, { trusted_proxies: ['127.0.0.0/8', '::1'] }),
    limited: await gateway('header', true, { headers_timeout: '300ms', body_timeout: '300ms', max_headers: 20, max_body_size: '1k' }),
    listed: await gateway('header', true, { forward_auth: { port: 0, trusted_proxies: ['127.0.0.1/32'] } }),
    async person() {
      const id = await createPerson(t, org);
      return { id, token: await mintPersonToken(t, org, id, { scope: 'orders:read' }) };
    },
    async close() {
      for (const running of started) await running.close();
      await upstream.close();
      await relay.close();
      await t.close();
      await database.drop();
    },
  };
}

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * Sends bytes as they are, over a socket: fetch and http.request normalise paths and
 * headers, which is exactly what these tests must not let happen before the gateway.
 */
export function sendRaw(url: string, head: string, body = ''): Promise<RawResponse> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve(parseResponse(Buffer.concat(chunks).toString('latin1'))));
    socket.write(Buffer.from(`${head}\r\n${body}`, 'latin1'));
  });
}

/** One request's head: request line, the given header lines, and Connection: close. */
export function head(method: string, target: string, headers: [string, string][]): string {
  return `${method} ${target} HTTP/1.1\r\n${headers.map(([name, value]) => `${name}: ${value}\r\n`).join('')}Connection: close\r\n`;
}

function parseResponse(text: string): RawResponse {
  const [top = '', ...rest] = text.split('\r\n\r\n');
  const [statusLine = '', ...lines] = top.split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { status: Number(statusLine.split(' ')[1] ?? 0), headers, body: rest.join('\r\n\r\n') };
}

/** host:port of a running server's URL, as a Host header names it. */
export const hostOf = (url: string) => new URL(url).host;
