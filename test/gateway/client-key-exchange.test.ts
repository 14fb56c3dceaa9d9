import assert from 'node:assert/strict';
import type { KeyObject } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, before, beforeEach, describe, it } from 'node:test';
import { jwtVerify } from 'jose';
import { type Logger, pino } from 'pino';
import { buildPlugins } from '../../src/gateway/build-plugins.ts';
import { readGatewayConfig } from '../../src/gateway/config/gateway-config.ts';
import { launchGateway } from '../../src/gateway/launch.ts';
import { type RunningGateway, startGateway } from '../../src/gateway/lifecycle.ts';
import { fileKey } from '../../src/gateway/settings/config-error.ts';
import { backends } from '../helpers/backends.ts';
import { type ClientKeyPair, newClientKey, registerKeyedClient, replaceFile } from '../helpers/client-keys.ts';
import { type JwksServer, startJwksServer } from '../helpers/jwks-server.ts';
import { claims, createPerson, EXCHANGE, mintPersonToken, registerClient } from '../helpers/oauth.ts';
import { type RecordingUpstream, startRecordingUpstream } from '../helpers/recording-upstream.ts';
import { startTestService, type TestOrg, type TestService } from '../helpers/service.ts';

const JWT = 'urn:ietf:params:oauth:token-type:jwt';
const ACCESS_TOKEN = 'urn:ietf:params:oauth:token-type:access_token';
const JWT_BEARER = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
const METADATA = '/.well-known/oauth-authorization-server';
const codeOf = async (response: Response) => ((await response.json()) as { errors: { code: string }[] }).errors[0]!.code;

/** A log that keeps its lines, to read what the gateway said. */
function keptLog(): { log: Logger; lines: string[] } {
  const lines: string[] = [];
  const sink = new Writable({ write: (chunk, _encoding, done) => (lines.push(String(chunk)), done()) });
  return { log: pino({ level: 'warn' }, sink), lines };
}

/**
 * The gateway's client with only a key file (design §7, issue 29), against the real service
 * behind a recorder: what the gateway sends the token endpoint, and what the upstream sees.
 */
describe('Gateway token exchange with a client key file instead of a secret', () => {
  let t: TestService;
  let org: TestOrg;
  let person: string;
  let personToken: string;
  let upstream: RecordingUpstream;
  let tokenEndpoint: RecordingUpstream;
  let jwks: JwksServer;
  /** A keyed client with one key, registered without a kid; its file. */
  let single: { key: ClientKeyPair; id: string; file: string };
  const gateways: RunningGateway[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'gw-keyed-'));
  const keyFile = (name: string, key: ClientKeyPair) => (writeFileSync(join(dir, name), key.pem), join(dir, name));

  const parameters = (clientId: string, file: string, extra: Record<string, unknown> = {}) => ({
    service_base_url: tokenEndpoint.url,
    subject_header_with_token: 'Authorization',
    actor_mode: 'oauth_client',
    oauth_client_id: clientId,
    oauth_client_private_key_file: file,
    requested_token_type: JWT,
    cache_delegated_tokens: false,
    ...extra,
  });
  const configOf = (given: Record<string, unknown>) =>
    readGatewayConfig({ port: 0, admin_port: 0, default_target: upstream.url, plugins: [{ type: 'token-exchange', id: 'tx', parameters: given }] }, fileKey);
  /** Built as the gateway command builds it (definition, log), without the start-up check. */
  async function gatewayWith(given: Record<string, unknown>, log: Logger = pino({ level: 'silent' })): Promise<RunningGateway> {
    const config = configOf(given);
    const gateway = await startGateway(config, await buildPlugins(config, log), log);
    gateways.push(gateway);
    return gateway;
  }
  const call = (gateway: RunningGateway, token = personToken) => fetch(`${gateway.url}/orders/1`, { headers: { authorization: `Bearer ${token}` } });
  const delegatedSeen = (index = -1) => String(upstream.requests.at(index)!.headers.authorization).replace(/^Bearer /, '');
  const tokenCalls = () =>
    tokenEndpoint.requests
      .filter((request) => request.url === '/oauth2/tokens')
      .map((request) => ({ form: new URLSearchParams(request.body), authorization: request.headers.authorization }));
  /** The assertion verifies with `publicKey` as the service verifies it; its header and claims. */
  const verified = (assertion: string | null, publicKey: KeyObject, clientId: string) =>
    jwtVerify(assertion ?? '', publicKey, { issuer: clientId, subject: clientId, audience: t.service.issuer, requiredClaims: ['jti', 'iat', 'exp'] });
  const noLeak = (...secrets: string[]) => {
    for (const request of upstream.requests)
      for (const secret of secrets) assert.ok(!request.rawHeaders.join('\n').includes(secret), 'a caller token reached the upstream');
  };

  before(async () => {
    [upstream, jwks] = await Promise.all([startRecordingUpstream(), startJwksServer()]);
    t = await startTestService(backends()[0]!, { TESSERA_DEV: '1' });
    tokenEndpoint = await startRecordingUpstream({ forwardTo: t.url });
    org = await t.org();
    person = await createPerson(t, org);
    personToken = await mintPersonToken(t, org, person, { scope: 'orders:read' });
    const key = newClientKey('ec');
    single = { key, id: await registerKeyedClient(t, org, [key.jwk]), file: keyFile('single.pem', key) };
    await t.call('PATCH', '/organizations/config', {
      as: org,
      body: { svid_jwks_urls: { 'example.org': jwks.url }, allowed_spiffe_ids: ['spiffe://example.org/gateway'] },
    });
  });
  after(async () => {
    for (const gateway of gateways) await gateway.close();
    await Promise.all([t.close(), upstream.close(), tokenEndpoint.close(), jwks.close()]);
    rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(() => {
    upstream.requests.length = 0;
    tokenEndpoint.requests.length = 0;
  });

  it('oauth_client with only a key file: starts, delegates, and signs a fresh assertion for each call to the token endpoint', async () => {
    const gateway = await launchGateway(configOf(parameters(single.id, single.file)), pino({ level: 'silent' }));
    gateways.push(gateway);
    assert.equal((await call(gateway)).status, 200);
    assert.equal((await call(gateway)).status, 200);
    assert.deepEqual([claims(delegatedSeen()).sub, claims(delegatedSeen()).act], [person, { sub: single.id }]);
    const calls = tokenCalls();
    assert.deepEqual(
      calls.map(({ form }) => form.get('grant_type')),
      ['client_credentials', 'client_credentials', EXCHANGE, EXCHANGE],
      "the start-up check, the gateway's own token, two exchanges",
    );
    const jtis = new Set<unknown>();
    for (const { form, authorization } of calls) {
      assert.equal(authorization, undefined, 'no Basic credentials');
      assert.equal(form.get('client_assertion_type'), JWT_BEARER);
      const { payload, protectedHeader } = await verified(form.get('client_assertion'), single.key.publicKey, single.id);
      assert.deepEqual(protectedHeader, { alg: 'ES256', typ: 'JWT' }, 'no kid without oauth_client_key_id');
      assert.equal(payload.exp! - payload.iat!, 60);
      jtis.add(payload.jti);
    }
    assert.equal(jtis.size, calls.length, 'a jti of its own for each assertion');
    // The gateway reaches the service through the recorder, whose address is not the issuer: it read the issuer from the metadata.
    assert.notEqual(tokenEndpoint.url, t.service.issuer);
    assert.ok(tokenEndpoint.requests.some((request) => request.url === METADATA));
    noLeak(personToken);
  });

  it('names the key by oauth_client_key_id, and signs with a replacing key file from the next call on', async () => {
    const [old, next, unregistered] = [newClientKey('ec', 'old'), newClientKey('ed25519', 'new'), newClientKey('ec')];
    const id = await registerKeyedClient(t, org, [old.jwk, next.jwk]);
    const file = keyFile('rotating.pem', old);
    const named = await gatewayWith(parameters(id, keyFile('named.pem', old), { oauth_client_key_id: 'old' }));
    assert.equal((await call(named)).status, 200);
    assert.equal((await verified(tokenCalls().at(-1)!.form.get('client_assertion'), old.publicKey, id)).protectedHeader.kid, 'old');

    const { log, lines } = keptLog();
    const gateway = await gatewayWith(parameters(id, file), log);
    const lastAssertion = () => tokenCalls().at(-1)!.form.get('client_assertion');
    assert.equal((await call(gateway)).status, 200);
    assert.equal((await verified(lastAssertion(), old.publicKey, id)).protectedHeader.alg, 'ES256');

    replaceFile(file, next.pem);
    assert.equal((await call(gateway)).status, 200);
    assert.equal((await verified(lastAssertion(), next.publicKey, id)).protectedHeader.alg, 'EdDSA', 'the new key signed the next call');

    replaceFile(file, '-----BEGIN PRIVATE KEY-----\nbroken\n-----END PRIVATE KEY-----\n');
    assert.equal((await call(gateway)).status, 200);
    assert.equal((await call(gateway)).status, 200);
    await verified(lastAssertion(), next.publicKey, id);
    assert.equal(lines.length, 1, 'one warning for the broken file, not one per call');
    assert.match(lines[0]!, /plugins\[0\]\.parameters\.oauth_client_private_key_file changed into a file that cannot be used \(it holds a PEM block/);
    assert.ok(!lines[0]!.includes('broken') && !lines[0]!.includes(next.pem.split('\n')[1]!), 'nothing of either file is logged');

    // A key the client does not have: the service refuses it at the next exchange, and nothing goes upstream.
    const forwarded = upstream.requests.length;
    replaceFile(file, unregistered.pem);
    const refused = await call(gateway);
    assert.deepEqual([refused.status, await codeOf(refused)], [502, 'GATEWAY_CLIENT_REFUSED']);
    assert.equal(upstream.requests.length, forwarded);
    // The refusal made the gateway forget the issuer: it reads the metadata again before the next assertion.
    const metadataReads = tokenEndpoint.requests.filter((request) => request.url === METADATA).length;
    replaceFile(file, next.pem);
    assert.equal((await call(gateway)).status, 200);
    assert.equal(tokenEndpoint.requests.filter((request) => request.url === METADATA).length, metadataReads + 1);
    noLeak(personToken);
  });

  it('exchanges an opaque subject bound to the keyed client, in oauth_client and gate_svid mode, with only the key file', async () => {
    const issuing = await gatewayWith(parameters(single.id, single.file, { requested_token_type: ACCESS_TOKEN }));
    assert.equal((await call(issuing)).status, 200);
    const opaque = delegatedSeen();
    assert.ok(!opaque.startsWith('eyJ'), 'an opaque delegated token, bound to the keyed client');
    upstream.requests.length = 0; // from here on it is a subject, which the upstream must never see

    const svidFile = join(dir, 'svid.jwt');
    writeFileSync(svidFile, await jwks.svid({ sub: 'spiffe://example.org/gateway', aud: [`${t.service.issuer}/oauth2/tokens`] }));
    const gateSvid = { actor_mode: 'gate_svid', actor_svid_source: 'file', actor_svid_file_path: svidFile };
    for (const gateway of [await gatewayWith(parameters(single.id, single.file)), await gatewayWith(parameters(single.id, single.file, gateSvid))]) {
      assert.equal((await call(gateway, opaque)).status, 200);
      assert.equal(claims(delegatedSeen()).sub, person);
    }
    assert.equal(claims(delegatedSeen()).act.sub, 'spiffe://example.org/gateway');

    // Another client may not present it: the service names the subject, and the upstream hears nothing.
    const other = await registerClient(t, org);
    const forwarded = upstream.requests.length;
    const foreign = await gatewayWith({
      ...parameters(other.id, single.file, gateSvid),
      oauth_client_private_key_file: undefined,
      oauth_client_secret: other.secret,
    });
    const refused = await call(foreign, opaque);
    assert.deepEqual([refused.status, await codeOf(refused)], [502, 'GATEWAY_SUBJECT_REFUSED']);
    assert.equal(upstream.requests.length, forwarded);
    noLeak(personToken, opaque);
  });
});
