import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import { buildPlugins } from '../../src/gateway/build-plugins.ts';
import { readGatewayConfig } from '../../src/gateway/config/gateway-config.ts';
import { type RunningGateway, startGateway } from '../../src/gateway/lifecycle.ts';
import { fileKey } from '../../src/gateway/settings/config-error.ts';
import { backends } from '../helpers/backends.ts';
import { newClientKey, registerKeyedClient } from '../helpers/client-keys.ts';
import { closedPortUrl, createPerson, mintPersonToken } from '../helpers/oauth.ts';
import { type RecordingUpstream, startRecordingUpstream } from '../helpers/recording-upstream.ts';
import { startTestService, type TestService } from '../helpers/service.ts';

const METADATA = '/.well-known/oauth-authorization-server';
type Answer = { status: number; body: string; delayMs?: number };

/** A service that misbehaves on purpose: its metadata and its token endpoint answer as the test says. */
async function startBadService(): Promise<{ url: string; set(metadata: Answer, token: Answer): void; close(): Promise<void> }> {
  let answers: { metadata: Answer; token: Answer } = { metadata: { status: 500, body: '{}' }, token: { status: 500, body: '{}' } };
  const server: Server = createServer((request, response) => {
    request.resume();
    const answer = request.url === METADATA ? answers.metadata : answers.token;
    setTimeout(() => response.writeHead(answer.status, { 'content-type': 'application/json' }).end(answer.body), answer.delayMs ?? 0);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    set: (metadata, token) => (answers = { metadata, token }),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * The zero-leak fault cases for a client with a key file: whatever fails on the way to a
 * delegated token (the service's metadata, the token endpoint, the key itself), the caller gets
 * the status docs/errors.md names and the upstream never sees the caller's token.
 */
describe('Gateway faults with a client key file', () => {
  let t: TestService;
  let bad: Awaited<ReturnType<typeof startBadService>>;
  let upstream: RecordingUpstream;
  let personToken: string;
  let clientId: string;
  let keyFile: string;
  let unregisteredKeyFile: string;
  const gateways: RunningGateway[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'gw-keyed-faults-'));
  const good = { status: 200, body: '' }; // the bad service's metadata, once its address is known

  before(async () => {
    [upstream, bad] = await Promise.all([startRecordingUpstream(), startBadService()]);
    good.body = JSON.stringify({ issuer: bad.url });
    t = await startTestService(backends()[0]!, { TESSERA_DEV: '1' });
    const org = await t.org();
    personToken = await mintPersonToken(t, org, await createPerson(t, org), { scope: 'orders:read' });
    const key = newClientKey('ed25519');
    clientId = await registerKeyedClient(t, org, [key.jwk]);
    writeFileSync((keyFile = join(dir, 'client.pem')), key.pem);
    writeFileSync((unregisteredKeyFile = join(dir, 'unregistered.pem')), newClientKey('ed25519').pem);
    process.env.TEST_KEYED_SVID = 'eyJhbGciOiJFUzI1NiJ9.e30.sig';
  });
  after(async () => {
    for (const gateway of gateways) await gateway.close();
    await Promise.all([t.close(), upstream.close(), bad.close()]);
    rmSync(dir, { recursive: true, force: true });
  });

  const oauthClient = (extra: Record<string, unknown> = {}) => ({
    service_base_url: t.url,
    subject_header_with_token: 'Authorization',
    actor_mode: 'oauth_client',
    oauth_client_id: clientId,
    oauth_client_private_key_file: keyFile,
    requested_token_type: 'urn:ietf:params:oauth:token-type:jwt',
    ...extra,
  });
  /** The actor an SVID from the environment, so the exchange is the only call to the token endpoint. */
  const gateSvid = (extra: Record<string, unknown> = {}) =>
    oauthClient({ actor_mode: 'gate_svid', actor_svid_source: 'env', actor_svid_env_var: 'TEST_KEYED_SVID', ...extra });
  const misbehaving = (metadata: Answer, token: Answer, extra: Record<string, unknown> = {}) => {
    bad.set(metadata, token);
    return gateSvid({ service_base_url: bad.url, ...extra });
  };

  const faults: [string, () => Promise<Record<string, unknown>>, number, string][] = [
    ['a token endpoint that is down', async () => oauthClient({ service_base_url: await closedPortUrl('') }), 502, 'GATEWAY_ACTOR_UNAVAILABLE'],
    [
      "a key the client has not registered, on the gateway's own token",
      async () => oauthClient({ oauth_client_private_key_file: unregisteredKeyFile }),
      502,
      'GATEWAY_ACTOR_UNAVAILABLE',
    ],
    [
      'a key the client has not registered, on the exchange',
      async () => gateSvid({ oauth_client_private_key_file: unregisteredKeyFile }),
      502,
      'GATEWAY_CLIENT_REFUSED',
    ],
    ['metadata answering 500', async () => misbehaving({ status: 500, body: '{}' }, good), 502, 'GATEWAY_TOKEN_ENDPOINT_FAILED'],
    ['metadata answering 404', async () => misbehaving({ status: 404, body: '{}' }, good), 502, 'GATEWAY_TOKEN_ENDPOINT_MALFORMED'],
    ['metadata without an issuer', async () => misbehaving({ status: 200, body: '{"token_endpoint":"x"}' }, good), 502, 'GATEWAY_TOKEN_ENDPOINT_MALFORMED'],
    ['metadata that is not JSON', async () => misbehaving({ status: 200, body: '<html>' }, good), 502, 'GATEWAY_TOKEN_ENDPOINT_MALFORMED'],
    [
      'metadata slower than upstream_request_timeout',
      async () => misbehaving({ ...good, delayMs: 1_000 }, good, { upstream_request_timeout: '200ms' }),
      502,
      'GATEWAY_TOKEN_ENDPOINT_TIMEOUT',
    ],
    ['a token endpoint answering 500', async () => misbehaving(good, { status: 500, body: '{"error":"server_error"}' }), 502, 'GATEWAY_TOKEN_ENDPOINT_FAILED'],
    [
      'a token endpoint refusing the client (401 invalid_client)',
      async () => misbehaving(good, { status: 401, body: '{"error":"invalid_client","error_description":"client_assertion has expired"}' }),
      502,
      'GATEWAY_CLIENT_REFUSED',
    ],
    [
      'a token endpoint refusing the subject',
      async () => misbehaving(good, { status: 400, body: '{"error":"invalid_request","error_description":"subject_token is not active"}' }),
      502,
      'GATEWAY_SUBJECT_REFUSED',
    ],
    [
      'a token endpoint slower than upstream_request_timeout',
      async () => misbehaving(good, { status: 200, body: '{"access_token":"x"}', delayMs: 1_000 }, { upstream_request_timeout: '200ms' }),
      502,
      'GATEWAY_TOKEN_ENDPOINT_TIMEOUT',
    ],
  ];
  for (const [name, parameters, status, code] of faults) {
    it(`answers ${status} ${code} for ${name}, and the upstream receives nothing`, async () => {
      const config = readGatewayConfig(
        { port: 0, admin_port: 0, default_target: upstream.url, plugins: [{ type: 'token-exchange', id: 'tx', parameters: await parameters() }] },
        fileKey,
      );
      const gateway = await startGateway(config, await buildPlugins(config), pino({ level: 'silent' }));
      gateways.push(gateway);
      const response = await fetch(`${gateway.url}/orders/1`, { headers: { authorization: `Bearer ${personToken}` } });
      const body = await response.text();
      assert.deepEqual([response.status, JSON.parse(body).errors[0].code], [status, code]);
      assert.ok(!body.includes(personToken), "the answer does not echo the caller's token");
      assert.equal(upstream.requests.length, 0);
    });
  }
});
