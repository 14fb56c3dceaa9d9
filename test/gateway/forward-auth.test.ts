import assert from 'node:assert/strict';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { after, before, beforeEach, describe, it } from 'node:test';
import { pino } from 'pino';
import { buildPlugins } from '../../src/gateway/build-plugins.ts';
import { readGatewayConfig } from '../../src/gateway/config/gateway-config.ts';
import { type RunningGateway, startGateway } from '../../src/gateway/lifecycle.ts';
import { fileKey } from '../../src/gateway/settings/config-error.ts';
import { backends } from '../helpers/backends.ts';
import { type ClientCredentials, claims, closedPortUrl, createPerson, mintPersonToken, registerClient } from '../helpers/oauth.ts';
import { type RecordingUpstream, startRecordingUpstream } from '../helpers/recording-upstream.ts';
import { startTestService, type TestOrg, type TestService } from '../helpers/service.ts';

const JWT = 'urn:ietf:params:oauth:token-type:jwt';

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * One request exactly as given: the request line, and the headers in order (a Host of our
 * choosing, repeated names), which fetch would not send.
 */
function send(base: string, method: string, path: string, headers: [string, string][]): Promise<Answer> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: url.hostname, port: url.port, method, path, headers: headers.flat(), setHost: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}
const codeOf = (answer: Answer) => (JSON.parse(answer.body) as { errors: { code: string }[] }).errors[0]!.code;

describe('Gateway forward-auth port', () => {
  let t: TestService;
  let org: TestOrg;
  let client: ClientCredentials;
  let person: string;
  let personToken: string;
  let upstream: RecordingUpstream;
  let gateway: RunningGateway;
  const others: RunningGateway[] = [];

  const parameters = (serviceUrl: string) => ({
    service_base_url: serviceUrl,
    subject_header_with_token: 'Authorization',
    actor_mode: 'oauth_client',
    oauth_client_id: client.id,
    oauth_client_secret: client.secret,
    requested_token_type: JWT,
  });
  /** The plugin runs for shop.example/orders/* only; the default target passes requests as they are. */
  async function start(serviceUrl: string, forwardAuth: Record<string, unknown> = { port: 0 }): Promise<RunningGateway> {
    const config = readGatewayConfig(
      {
        port: 0,
        admin_port: 0,
        forward_auth: forwardAuth,
        default_target: upstream.url,
        urls: [{ pattern: 'shop.example/orders/*', target: upstream.url, plugins: { tx: { enabled: true } } }],
        plugins: [{ type: 'token-exchange', id: 'tx', enabled: false, parameters: parameters(serviceUrl) }],
      },
      fileKey,
    );
    return startGateway(config, await buildPlugins(config), pino({ level: 'silent' }));
  }
  const exchanges = async () => (await t.call('GET', '/audit/events?type=token.exchange&limit=100', { as: org })).body.result.length as number;
  const delegatedIn = (answer: Answer) => String(answer.headers.authorization).replace(/^Bearer /, '');

  before(async () => {
    upstream = await startRecordingUpstream();
    t = await startTestService(backends()[0]!);
    org = await t.org();
    client = await registerClient(t, org);
    person = await createPerson(t, org);
    personToken = await mintPersonToken(t, org, person, { scope: 'orders:read' });
    gateway = await start(t.url);
  });
  after(async () => {
    for (const g of [gateway, ...others]) await g.close();
    await Promise.all([t.close(), upstream.close()]);
  });
  beforeEach(() => (upstream.requests.length = 0));

  it("Traefik and Caddy's shape (X-Forwarded-*): 200 with the delegated token and X-Request-Id, no body; the second check is a cache hit", async () => {
    const before = await exchanges();
    // What Traefik's ForwardAuth sends: the client's headers, its own X-Forwarded-*, to the auth address.
    const traefik = (requestId: string): [string, string][] => [
      ['Host', '127.0.0.1'],
      ['Authorization', `Bearer ${personToken}`],
      ['X-Forwarded-Method', 'GET'],
      ['X-Forwarded-Proto', 'https'],
      ['X-Forwarded-Host', 'shop.example'],
      ['X-Forwarded-Uri', '/orders/1?expand=lines'],
      ['X-Forwarded-For', '203.0.113.7'],
      ['X-Request-Id', requestId],
    ];
    const first = await send(gateway.forwardAuthUrl!, 'GET', '/', traefik('check-1'));
    assert.equal(first.status, 200, first.body);
    assert.equal(first.body, '');
    assert.equal(first.headers['x-request-id'], 'check-1');
    const delegated = delegatedIn(first);
    assert.notEqual(delegated, personToken);
    assert.deepEqual([claims(delegated).sub, claims(delegated).act], [person, { sub: client.id }]);
    const second = await send(gateway.forwardAuthUrl!, 'GET', '/', traefik('check-2'));
    assert.equal(second.status, 200);
    assert.equal(delegatedIn(second), delegated, 'the same delegated token, from the cache');
    assert.equal((await exchanges()) - before, 1, 'one exchange for two checks');
    assert.equal(upstream.requests.length, 0, 'a check forwards nothing');
  });

  it("applies the proxy port's URL rules to the described host and path: a path no rule gives the plugin is allowed as it is", async () => {
    const answer = await send(gateway.forwardAuthUrl!, 'GET', '/', [
      ['Host', '127.0.0.1'],
      ['X-Forwarded-Method', 'GET'],
      ['X-Forwarded-Host', 'shop.example'],
      ['X-Forwarded-Uri', '/public/logo.png'],
    ]);
    assert.equal(answer.status, 200);
    assert.equal(answer.headers.authorization, undefined);
    assert.ok(answer.headers['x-request-id']);
  });

  it("nginx's shape (X-Original-Method/-URI, X-Forwarded-Host): the same normalisation as the proxy port", async () => {
    const nginx = (uri: string): [string, string][] => [
      ['Host', '127.0.0.1'],
      ['X-Original-Method', 'POST'],
      ['X-Original-URI', uri],
      ['X-Forwarded-Host', 'shop.example'],
      ['Authorization', `Bearer ${personToken}`],
    ];
    // /public/%2e%2e/orders/2 is /orders/2 once normalised: the rule that runs the plugin applies.
    const climbing = await send(gateway.forwardAuthUrl!, 'GET', '/_tessera_auth', nginx('/public/%2e%2e/orders/2'));
    assert.equal(climbing.status, 200);
    assert.ok(delegatedIn(climbing).startsWith('eyJ'), 'the plugin ran');
    const escaped = await send(gateway.forwardAuthUrl!, 'GET', '/_tessera_auth', nginx('/orders/..%2fadmin'));
    assert.equal(escaped.status, 400);
    assert.equal(codeOf(escaped), 'GATEWAY_BAD_REQUEST_TARGET');
  });

  it("Envoy ext_authz's shape (HTTP service): the check's own request line and Host", async () => {
    const envoy = await send(gateway.forwardAuthUrl!, 'POST', '/orders/3?draft=1', [
      ['Host', 'shop.example'],
      ['Authorization', `Bearer ${personToken}`],
      ['Content-Length', '0'],
      ['X-Envoy-Expected-Rq-Timeout-Ms', '200'],
      ['X-Forwarded-Proto', 'http'],
      ['X-Request-Id', '3f1c9a2e-envoy'],
    ]);
    assert.equal(envoy.status, 200, envoy.body);
    assert.equal(envoy.headers['x-request-id'], '3f1c9a2e-envoy');
    assert.equal(claims(delegatedIn(envoy)).sub, person);
  });

  it('answers 400 when X-Original-* and X-Forwarded-* describe different requests', async () => {
    const paths = await send(gateway.forwardAuthUrl!, 'GET', '/', [
      ['Host', '127.0.0.1'],
      ['X-Forwarded-Host', 'shop.example'],
      ['X-Original-URI', '/public/x'],
      ['X-Forwarded-Uri', '/orders/1'],
      ['Authorization', `Bearer ${personToken}`],
    ]);
    assert.equal(paths.status, 400);
    assert.equal(codeOf(paths), 'GATEWAY_FORWARD_AUTH_CONFLICT');
    const methods = await send(gateway.forwardAuthUrl!, 'GET', '/', [
      ['Host', 'shop.example'],
      ['X-Original-Method', 'GET'],
      ['X-Forwarded-Method', 'DELETE'],
      ['X-Original-URI', '/orders/1'],
      ['X-Forwarded-Uri', '/orders/1'],
    ]);
    assert.equal(codeOf(methods), 'GATEWAY_FORWARD_AUTH_CONFLICT');
  });

  it("answers the plugin's 401 with its JSON body and challenge when the subject token is missing", async () => {
    const answer = await send(gateway.forwardAuthUrl!, 'GET', '/', [
      ['Host', '127.0.0.1'],
      ['X-Forwarded-Host', 'shop.example'],
      ['X-Forwarded-Uri', '/orders/1'],
    ]);
    assert.equal(answer.status, 401);
    assert.equal(answer.headers['www-authenticate'], 'Bearer');
    assert.match(String(answer.headers['content-type']), /^application\/json/);
    assert.equal(codeOf(answer), 'GATEWAY_SUBJECT_MISSING');
  });

  it("answers the plugin's 502 when the token endpoint is down", async () => {
    const down = await start(await closedPortUrl(''));
    others.push(down);
    const answer = await send(down.forwardAuthUrl!, 'GET', '/', [
      ['Host', '127.0.0.1'],
      ['X-Forwarded-Host', 'shop.example'],
      ['X-Forwarded-Uri', '/orders/1'],
      ['Authorization', `Bearer ${personToken}`],
    ]);
    assert.equal(answer.status, 502);
    assert.match(codeOf(answer), /^GATEWAY_(ACTOR_UNAVAILABLE|TOKEN_ENDPOINT_UNREACHABLE)$/);
  });

  it('answers 403 to a peer not in forward_auth.trusted_proxies', async () => {
    const listed = await start(t.url, { port: 0, trusted_proxies: ['10.0.0.0/8'] });
    others.push(listed);
    const answer = await send(listed.forwardAuthUrl!, 'GET', '/', [
      ['Host', '127.0.0.1'],
      ['X-Forwarded-Host', 'shop.example'],
      ['X-Forwarded-Uri', '/orders/1'],
      ['Authorization', `Bearer ${personToken}`],
    ]);
    assert.equal(answer.status, 403);
    assert.equal(codeOf(answer), 'GATEWAY_FORWARD_AUTH_FORBIDDEN');
  });

  it('refuses at start to bind a non-loopback address without trusted proxies', async () => {
    await assert.rejects(() => start(t.url, { port: 0, host: '0.0.0.0' }), /forward_auth\.host: is 0\.0\.0\.0, not loopback/);
  });

  it('the proxy port never takes the method or path from X-Original-* or X-Forwarded-Uri/-Method', async () => {
    const answer = await send(gateway.url, 'GET', '/public/page', [
      ['Host', 'shop.example'],
      ['X-Original-Method', 'DELETE'],
      ['X-Original-URI', '/orders/1'],
      ['X-Forwarded-Method', 'DELETE'],
      ['X-Forwarded-Uri', '/orders/1'],
      ['Authorization', 'Bearer caller-token'],
    ]);
    assert.equal(answer.status, 200);
    assert.equal(upstream.requests.length, 1);
    const [forwarded] = upstream.requests;
    assert.deepEqual([forwarded!.method, forwarded!.url], ['GET', '/public/page']);
    assert.equal(forwarded!.headers.authorization, 'Bearer caller-token', 'the default target runs no plugin: the headers did not route it to /orders/*');
  });
});
