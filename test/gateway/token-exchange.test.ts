import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import { pino } from 'pino';
import type { Schedule } from '../../src/concurrency/refresh-with-backoff.ts';
import { buildPlugins } from '../../src/gateway/build-plugins.ts';
import { readGatewayConfig } from '../../src/gateway/config/gateway-config.ts';
import { type RunningGateway, startGateway } from '../../src/gateway/lifecycle.ts';
import { OAuthClientActor } from '../../src/gateway/plugins/token-exchange/actor-sources.ts';
import { type PluginOptions, tokenExchangePlugin } from '../../src/gateway/plugins/token-exchange/handler.ts';
import { fileKey } from '../../src/gateway/settings/config-error.ts';
import { backends } from '../helpers/backends.ts';
import { type JwksServer, startJwksServer } from '../helpers/jwks-server.ts';
import { type ClientCredentials, claims, createPerson, mintPersonToken, registerClient } from '../helpers/oauth.ts';
import { type RecordingUpstream, startRecordingUpstream } from '../helpers/recording-upstream.ts';
import { startTestService, type TestOrg, type TestService } from '../helpers/service.ts';
import { waitFor } from '../helpers/wait.ts';
import { FakeAgent } from '../helpers/workload-agent.ts';

const JWT = 'urn:ietf:params:oauth:token-type:jwt';
const codeOf = async (response: Response) => ((await response.json()) as { errors: { code: string }[] }).errors[0]!.code;
const silent = pino({ level: 'silent' });

/** A token endpoint that misbehaves on purpose: status, body and delay are the test's to set. */
async function startBadTokenEndpoint(): Promise<{ url: string; set(status: number, body: string, delayMs?: number): void; close(): Promise<void> }> {
  let answer = { status: 500, body: '{}', delayMs: 0 };
  const server: Server = createServer((request, response) => {
    request.resume();
    setTimeout(() => response.writeHead(answer.status, { 'content-type': 'application/json' }).end(answer.body), answer.delayMs);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    set: (status, body, delayMs = 0) => (answer = { status, body, delayMs }),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('Gateway token-exchange plugin, end to end', () => {
  let t: TestService;
  let org: TestOrg;
  let client: ClientCredentials;
  let personToken: string;
  let person: string;
  let upstream: RecordingUpstream;
  let jwks: JwksServer;
  let bad: Awaited<ReturnType<typeof startBadTokenEndpoint>>;
  const gateways: RunningGateway[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'gw-tx-'));

  async function gatewayWith(parameters: Record<string, unknown>, options: PluginOptions = {}): Promise<RunningGateway> {
    const config = readGatewayConfig(
      { port: 0, admin_port: 0, default_target: upstream.url, plugins: [{ type: 'token-exchange', id: 'tx', parameters }] },
      fileKey,
    );
    const plugin = config.plugins[0]!;
    const gateway = await startGateway(config, [tokenExchangePlugin(plugin.id, plugin.enabled, plugin.params, options)], silent);
    gateways.push(gateway);
    return gateway;
  }
  const oauthClient = () => ({
    service_base_url: t.url,
    subject_header_with_token: 'Authorization',
    actor_mode: 'oauth_client',
    oauth_client_id: client.id,
    oauth_client_secret: client.secret,
    requested_token_type: JWT,
  });
  const call = (gateway: RunningGateway, headers: Record<string, string> = {}) => fetch(`${gateway.url}/orders/1`, { headers });
  /** Nothing that reached the upstream carries the caller's token. */
  const noLeak = (...secrets: string[]) => {
    for (const request of upstream.requests)
      for (const secret of secrets) assert.ok(!request.rawHeaders.join('\n').includes(secret), 'a caller token reached the upstream');
  };

  before(async () => {
    jwks = await startJwksServer();
    bad = await startBadTokenEndpoint();
    upstream = await startRecordingUpstream();
    t = await startTestService(backends()[0]!, { TESSERA_DEV: '1' });
    org = await t.org();
    client = await registerClient(t, org);
    person = await createPerson(t, org);
    personToken = await mintPersonToken(t, org, person, { scope: 'orders:read' });
    await t.call('PATCH', '/organizations/config', {
      as: org,
      body: { svid_jwks_urls: { 'example.org': jwks.url }, allowed_spiffe_ids: ['spiffe://example.org/gateway'] },
    });
  });
  after(async () => {
    for (const gateway of gateways) await gateway.close();
    await Promise.all([t.close(), upstream.close(), jwks.close(), bad.close()]);
    rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(() => (upstream.requests.length = 0));

  it("oauth_client: the upstream gets the delegated JWT with the gateway in act, never the caller's token; a repeat is served from cache", async () => {
    const gateway = await gatewayWith(oauthClient());
    const first = await call(gateway, { authorization: `Bearer ${personToken}` });
    assert.equal(first.status, 200);
    const delegated = String(upstream.requests[0]!.headers.authorization).replace(/^Bearer /, '');
    assert.deepEqual([claims(delegated).sub, claims(delegated).act], [person, { sub: client.id }]);
    assert.equal((await call(gateway, { authorization: `Bearer ${personToken}` })).status, 200);
    assert.equal(upstream.requests[1]!.headers.authorization, `Bearer ${delegated}`, 'the same delegated token, from cache');
    const exchanges = (await t.call('GET', '/audit/events?type=token.exchange&limit=100', { as: org })).body.result.length;
    assert.equal(exchanges, 1, 'one exchange for two requests');
    noLeak(personToken);
  });

  it("oauth_client: renews the gateway's own token in the background, at 80 % of its life", async () => {
    const renewing = await registerClient(t, org, { client_name: 'renewing', access_token_duration: 600 });
    const config = readGatewayConfig(
      { plugins: [{ type: 'token-exchange', parameters: { ...oauthClient(), oauth_client_id: renewing.id, oauth_client_secret: renewing.secret } }] },
      fileKey,
    );
    const timers: { run: () => void; delayMs: number }[] = [];
    const schedule: Schedule = (run, delayMs) => {
      timers.push({ run, delayMs });
      return () => {};
    };
    const actor = new OAuthClientActor(config.plugins[0]!.params, schedule);
    const first = await actor.actor();
    assert.equal(timers.length, 1);
    assert.ok(Math.abs(timers[0]!.delayMs - 480_000) < 2_000, `renewal scheduled in ${timers[0]!.delayMs} ms`);
    assert.deepEqual(await actor.actor(), first, 'no mint before the renewal');
    timers[0]!.run(); // the renewal time has come
    await waitFor(() => timers.length >= 2, { what: 'the renewal to mint and schedule the next one' });
    assert.equal(timers.length, 2, 'renewed, and the next renewal scheduled');
    assert.notEqual((await actor.actor()).token, first.token);
    const mints = (await t.call('GET', '/audit/events?type=token.client_credentials&limit=100', { as: org })).body.result.filter(
      (e: { data: { client_id: string } }) => e.data.client_id === renewing.id,
    );
    assert.equal(mints.length, 2);

    // The client's secret is rotated away: the next renewal fails, is retried later with
    // back-off, and the gateway keeps using the token it has while that token lasts.
    const current = await actor.actor();
    await t.call('POST', `/oauth2/clients/${renewing.id}/secret`, { as: org });
    timers[1]!.run();
    await waitFor(() => timers.length >= 3, { what: 'the failed renewal to schedule its retry' });
    assert.equal(timers[2]!.delayMs, 2_000, 'retried with back-off');
    assert.deepEqual(await actor.actor(), current);
  });

  it('request_actor with a cookie subject: only that cookie and the actor header are removed', async () => {
    const assistant = await createPerson(t, org);
    const actorToken = await mintPersonToken(t, org, assistant);
    const gateway = await gatewayWith({
      service_base_url: t.url,
      subject_cookie_with_token: 'session',
      actor_mode: 'request_actor',
      actor_header_with_token: 'X-Actor',
      requested_token_type: JWT,
    });
    const response = await call(gateway, { cookie: `theme=dark; session=${personToken}; lang=en`, 'x-actor': actorToken });
    assert.equal(response.status, 200);
    const seen = upstream.requests[0]!.headers;
    assert.equal(seen.cookie, 'theme=dark; lang=en');
    assert.equal(seen['x-actor'], undefined);
    assert.deepEqual(claims(String(seen.authorization).slice(7)).act, { sub: assistant });
    noLeak(personToken, actorToken);
  });

  it('gate_svid from a file: re-read when replaced, 502 once it is gone', async (test) => {
    const file = join(dir, 'svid.jwt');
    const audience = [`${t.service.issuer}/oauth2/tokens`];
    const firstSvid = await jwks.svid({ sub: 'spiffe://example.org/gateway', aud: audience });
    const secondSvid = await jwks.svid({ sub: 'spiffe://example.org/gateway', aud: audience, jti: 'second' });
    assert.notEqual(secondSvid, firstSvid);
    // The service's token endpoint, behind a recorder: which SVID the gateway sent as its actor.
    const tokenEndpoint = await startRecordingUpstream({ forwardTo: t.url });
    test.after(() => tokenEndpoint.close());
    const actorTokensSent = () =>
      tokenEndpoint.requests.filter((request) => request.url === '/oauth2/tokens').map((request) => new URLSearchParams(request.body).get('actor_token'));
    // The file's modification times are set, not left to the file system's clock (which may not
    // tick between two writes), and the reload interval runs on a clock of the test's.
    const replaceFile = (svid: string, mtime: Date) => (writeFileSync(file, svid), utimesSync(file, mtime, mtime));
    let now = Date.UTC(2030, 0, 1);
    replaceFile(firstSvid, new Date(Date.UTC(2030, 0, 1)));
    const gateway = await gatewayWith(
      {
        ...oauthClient(),
        service_base_url: tokenEndpoint.url,
        actor_mode: 'gate_svid',
        actor_svid_source: 'file',
        actor_svid_file_path: file,
        actor_svid_file_reload: '10s',
        oauth_client_id: undefined,
        oauth_client_secret: undefined,
        cache_delegated_tokens: false,
      },
      { now: () => now },
    );
    const send = () => call(gateway, { authorization: `Bearer ${personToken}` });
    assert.equal((await send()).status, 200);
    assert.deepEqual(claims(String(upstream.requests[0]!.headers.authorization).slice(7)).act, { sub: 'spiffe://example.org/gateway' });
    assert.deepEqual(actorTokensSent(), [firstSvid]);
    replaceFile(secondSvid, new Date(Date.UTC(2030, 0, 1, 0, 1)));
    now += 9_999;
    assert.equal((await send()).status, 200);
    assert.deepEqual(actorTokensSent(), [firstSvid, firstSvid], 'within the reload interval the file is not looked at');
    now += 1;
    assert.equal((await send()).status, 200);
    assert.deepEqual(actorTokensSent(), [firstSvid, firstSvid, secondSvid], 'the replaced file was re-read: the new SVID was the actor');
    rmSync(file);
    now += 10_000;
    const gone = await send();
    assert.deepEqual([gone.status, await codeOf(gone)], [502, 'GATEWAY_ACTOR_UNAVAILABLE']);
    assert.equal(upstream.requests.length, 3);
    assert.equal(actorTokensSent().length, 3, 'nothing was exchanged without an SVID');
    noLeak(personToken);
  });

  // Every case sends the person's token unless it says otherwise (a function, as the token is minted in before()).
  const subjectOnly = () => ({ authorization: `Bearer ${personToken}` });
  it('gate_svid from the SPIFFE Workload API: a real agent on a unix socket; down or SVID-less is 502, a restart recovers', async () => {
    const audience = [`${t.service.issuer}/oauth2/tokens`];
    const agent = new FakeAgent(join(dir, 'agent.sock'));
    const svid = await jwks.svid({ sub: 'spiffe://example.org/gateway', aud: audience });
    agent.respond = () => ({ svids: [{ spiffe_id: 'spiffe://example.org/gateway', svid, hint: '' }] });
    const withAgent = async (socket: string) => {
      const config = readGatewayConfig(
        {
          port: 0,
          admin_port: 0,
          default_target: upstream.url,
          plugins: [
            {
              type: 'token-exchange',
              id: 'wl',
              parameters: {
                service_base_url: t.url,
                subject_header_with_token: 'Authorization',
                actor_mode: 'gate_svid',
                actor_svid_source: 'workload_api',
                actor_workload_api_socket: `unix://${socket}`,
                requested_token_type: JWT,
                cache_delegated_tokens: false,
              },
            },
          ],
        },
        fileKey,
      );
      const gateway = await startGateway(config, await buildPlugins(config), silent);
      gateways.push(gateway);
      return gateway;
    };
    // No agent listening yet: the actor cannot be produced.
    const early = await withAgent(agent.path);
    const down = await call(early, { authorization: `Bearer ${personToken}` });
    assert.deepEqual([down.status, await codeOf(down)], [502, 'GATEWAY_ACTOR_UNAVAILABLE']);
    assert.equal(upstream.requests.length, 0);
    await agent.start();
    try {
      const gateway = await withAgent(agent.path);
      assert.equal((await call(gateway, { authorization: `Bearer ${personToken}` })).status, 200);
      assert.deepEqual(claims(String(upstream.requests[0]!.headers.authorization).slice(7)).act, { sub: 'spiffe://example.org/gateway' });
      assert.deepEqual(agent.received[0]!.audience, audience, "the SVID is asked for the service's token endpoint");
      assert.deepEqual(agent.received[0]!.securityHeader, ['true']);
      // Restarted, and now answering without an SVID: a gateway that holds none gets 502.
      agent.stop();
      agent.respond = () => ({ svids: [] });
      await agent.start();
      const empty = await call(await withAgent(agent.path), { authorization: `Bearer ${personToken}` });
      assert.deepEqual([empty.status, await codeOf(empty)], [502, 'GATEWAY_ACTOR_UNAVAILABLE']);
      assert.equal(upstream.requests.length, 1, 'nothing more reached the upstream');
      noLeak(personToken, svid);
    } finally {
      agent.stop();
    }
  });

  /**
   * A plugin pointed at the misbehaving token endpoint, answering as told; its actor is an SVID
   * from the environment, so the exchange is the only call that can fail.
   */
  const misbehavingEndpoint = (answer: Parameters<typeof bad.set>, extra: Record<string, unknown> = {}) => {
    bad.set(...answer);
    return {
      ...oauthClient(),
      service_base_url: bad.url,
      actor_mode: 'gate_svid',
      actor_svid_source: 'env',
      actor_svid_env_var: 'TEST_SVID',
      oauth_client_id: undefined,
      oauth_client_secret: undefined,
      ...extra,
    };
  };
  const faults: [string, () => Promise<Record<string, unknown>>, () => Record<string, string>, number, string][] = [
    ['no subject token', async () => oauthClient(), () => ({}), 401, 'GATEWAY_SUBJECT_MISSING'],
    [
      'no request actor',
      async () => ({
        ...oauthClient(),
        actor_mode: 'request_actor',
        actor_header_with_token: 'X-Actor',
        oauth_client_id: undefined,
        oauth_client_secret: undefined,
      }),
      subjectOnly,
      401,
      'GATEWAY_ACTOR_MISSING',
    ],
    [
      'a token endpoint that is down',
      async () => ({ ...oauthClient(), service_base_url: 'http://127.0.0.1:1' }),
      subjectOnly,
      502,
      'GATEWAY_ACTOR_UNAVAILABLE',
    ],
    ['a rejected client_credentials mint', async () => ({ ...oauthClient(), oauth_client_secret: 'tcs_wrong' }), subjectOnly, 502, 'GATEWAY_ACTOR_UNAVAILABLE'],
    [
      'a token endpoint refusing the exchange (400)',
      async () => ({
        ...oauthClient(),
        actor_mode: 'request_actor',
        actor_header_with_token: 'X-Actor',
        oauth_client_id: undefined,
        oauth_client_secret: undefined,
      }),
      () => ({ ...subjectOnly(), 'x-actor': 'not-a-token' }),
      502,
      'GATEWAY_ACTOR_REFUSED',
    ],
    ['a token endpoint answering 500', async () => misbehavingEndpoint([500, '{"error":"server_error"}']), subjectOnly, 502, 'GATEWAY_TOKEN_ENDPOINT_FAILED'],
    [
      'a token endpoint refusing the request for another reason (400 invalid_scope)',
      async () => misbehavingEndpoint([400, '{"error":"invalid_scope","error_description":"not within what the subject holds"}']),
      subjectOnly,
      502,
      'GATEWAY_TOKEN_ENDPOINT_REFUSED',
    ],
    [
      'malformed JSON from the token endpoint',
      async () => misbehavingEndpoint([200, '{"access_token": ']),
      subjectOnly,
      502,
      'GATEWAY_TOKEN_ENDPOINT_MALFORMED',
    ],
    [
      'a token answer without access_token',
      async () => misbehavingEndpoint([200, '{"token_type":"Bearer"}']),
      subjectOnly,
      502,
      'GATEWAY_TOKEN_ENDPOINT_MALFORMED',
    ],
    [
      'a token answer larger than 64 KiB (read no further)',
      async () => misbehavingEndpoint([200, `{"access_token":"${'a'.repeat(200_000)}"}`]),
      subjectOnly,
      502,
      'GATEWAY_TOKEN_ENDPOINT_MALFORMED',
    ],
    [
      'a token endpoint slower than upstream_request_timeout',
      async () => misbehavingEndpoint([200, '{"access_token":"x"}', 1_000], { upstream_request_timeout: '200ms' }),
      subjectOnly,
      502,
      'GATEWAY_TOKEN_ENDPOINT_TIMEOUT',
    ],
    [
      'an unset SVID variable',
      async () => ({
        ...oauthClient(),
        actor_mode: 'gate_svid',
        actor_svid_source: 'env',
        actor_svid_env_var: 'TEST_SVID_UNSET',
        oauth_client_id: undefined,
        oauth_client_secret: undefined,
      }),
      subjectOnly,
      502,
      'GATEWAY_ACTOR_UNAVAILABLE',
    ],
    [
      'a missing SVID file',
      async () => ({
        ...oauthClient(),
        actor_mode: 'gate_svid',
        actor_svid_source: 'file',
        actor_svid_file_path: join(dir, 'absent.jwt'),
        oauth_client_id: undefined,
        oauth_client_secret: undefined,
      }),
      subjectOnly,
      502,
      'GATEWAY_ACTOR_UNAVAILABLE',
    ],
    [
      'an empty SVID file',
      async () => (
        writeFileSync(join(dir, 'empty.jwt'), ''),
        {
          ...oauthClient(),
          actor_mode: 'gate_svid',
          actor_svid_source: 'file',
          actor_svid_file_path: join(dir, 'empty.jwt'),
          oauth_client_id: undefined,
          oauth_client_secret: undefined,
        }
      ),
      subjectOnly,
      502,
      'GATEWAY_ACTOR_UNAVAILABLE',
    ],
  ];
  for (const [name, parameters, headers, status, code] of faults) {
    it(`answers ${status} ${code} for ${name}, and the upstream receives nothing`, async () => {
      process.env.TEST_SVID = 'eyJhbGciOiJFUzI1NiJ9.e30.sig';
      const given = Object.fromEntries(Object.entries(await parameters()).filter(([, v]) => v !== undefined));
      const gateway = await gatewayWith(given);
      const response = await call(gateway, headers());
      assert.equal(response.status, status);
      assert.equal(await codeOf(response), code);
      assert.equal(upstream.requests.length, 0);
    });
  }
});
