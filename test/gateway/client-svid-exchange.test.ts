import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import { pino } from 'pino';
import { buildPlugins } from '../../src/gateway/build-plugins.ts';
import { readGatewayConfig } from '../../src/gateway/config/gateway-config.ts';
import { launchGateway } from '../../src/gateway/launch.ts';
import { type RunningGateway, startGateway } from '../../src/gateway/lifecycle.ts';
import { fileKey } from '../../src/gateway/settings/config-error.ts';
import { backends } from '../helpers/backends.ts';
import { type JwksServer, startJwksServer } from '../helpers/jwks-server.ts';
import { claims, closedPortUrl, createPerson, EXCHANGE, mintPersonToken } from '../helpers/oauth.ts';
import { type RecordingUpstream, startRecordingUpstream } from '../helpers/recording-upstream.ts';
import { startTestService, type TestOrg, type TestService } from '../helpers/service.ts';
import { FakeAgent } from '../helpers/workload-agent.ts';

const GATEWAY = 'spiffe://example.org/gateway';
const JWT = 'urn:ietf:params:oauth:token-type:jwt';
const ACCESS_TOKEN = 'urn:ietf:params:oauth:token-type:access_token';

/**
 * The gateway with nothing but its JWT-SVID (design §7, issue 29): in gate_svid mode the SVID
 * is its actor and, with oauth_client_auth: svid, its client assertion at a spiffe_jwt client of
 * the real service. No secret and no key file exist anywhere in the set-up.
 */
describe('Gateway token exchange with only its JWT-SVID (oauth_client_auth: svid)', () => {
  let t: TestService;
  let org: TestOrg;
  let trustDomain: JwksServer;
  let upstream: RecordingUpstream;
  let person: string;
  let personToken: string;
  let clientId: string;
  const gateways: RunningGateway[] = [];

  /** An SVID for the issuer (as client assertion) and its token endpoint (as actor), in the environment variable named. */
  const svidIn = async (variable: string, claimsOf: Record<string, unknown> = {}) => {
    process.env[variable] = await trustDomain.svid({ sub: GATEWAY, aud: [t.service.issuer, `${t.service.issuer}/oauth2/tokens`], ...claimsOf });
    return variable;
  };
  const parameters = (variable: string, extra: Record<string, unknown> = {}) => ({
    service_base_url: t.url,
    subject_header_with_token: 'Authorization',
    actor_mode: 'gate_svid',
    actor_svid_source: 'env',
    actor_svid_env_var: variable,
    oauth_client_id: clientId,
    oauth_client_auth: 'svid',
    requested_token_type: JWT,
    cache_delegated_tokens: false,
    ...extra,
  });
  const configOf = (given: Record<string, unknown>) =>
    readGatewayConfig({ port: 0, admin_port: 0, default_target: upstream.url, plugins: [{ type: 'token-exchange', id: 'tx', parameters: given }] }, fileKey);
  /** Built as the gateway command builds it, without the start-up check (a fault must reach the request). */
  const gatewayWith = async (given: Record<string, unknown>) => {
    const config = configOf(given);
    const gateway = await startGateway(config, await buildPlugins(config), pino({ level: 'silent' }));
    gateways.push(gateway);
    return gateway;
  };
  const call = (gateway: RunningGateway, token = personToken) => fetch(`${gateway.url}/orders/1`, { headers: { authorization: `Bearer ${token}` } });
  const delegatedSeen = () => String(upstream.requests.at(-1)!.headers.authorization).replace(/^Bearer /, '');

  before(async () => {
    [trustDomain, upstream] = await Promise.all([startJwksServer(), startRecordingUpstream()]);
    t = await startTestService(backends()[0]!, { TESSERA_DEV: '1' });
    org = await t.org();
    const trusted = await t.call('PATCH', '/organizations/config', {
      as: org,
      body: { svid_jwks_urls: { 'example.org': trustDomain.url }, allowed_spiffe_ids: [GATEWAY] },
    });
    assert.equal(trusted.status, 200);
    const registered = await t.call('POST', '/oauth2/clients', {
      as: org,
      body: { client_name: 'gateway', grant_types: ['client_credentials', EXCHANGE], token_endpoint_auth_method: 'spiffe_jwt', spiffe_id: GATEWAY },
    });
    assert.equal(registered.status, 201, JSON.stringify(registered.body));
    clientId = registered.body.result.client_id;
    person = await createPerson(t, org);
    personToken = await mintPersonToken(t, org, person);
  });
  after(async () => {
    for (const gateway of gateways) await gateway.close();
    await Promise.all([t.close(), upstream.close(), trustDomain.close()]);
  });
  beforeEach(() => {
    upstream.requests.length = 0;
  });

  it('starts (the start-up check authenticates with the SVID) and delegates with the SPIFFE ID as actor', async () => {
    const gateway = await launchGateway(configOf(parameters(await svidIn('TEST_SVID_CLIENT'))), pino({ level: 'silent' }));
    gateways.push(gateway);
    const response = await call(gateway);
    assert.equal(response.status, 200);
    assert.deepEqual([claims(delegatedSeen()).sub, claims(delegatedSeen()).act], [person, { sub: GATEWAY }]);
    assert.equal(claims(delegatedSeen()).client_id, clientId);
    assert.ok(!upstream.requests[0]!.rawHeaders.join('\n').includes(personToken), "the caller's token did not reach the upstream");
  });

  it('exchanges an opaque subject bound to the SPIFFE client, with only the SVID', async () => {
    const variable = await svidIn('TEST_SVID_OPAQUE');
    const issuing = await gatewayWith(parameters(variable, { requested_token_type: ACCESS_TOKEN }));
    assert.equal((await call(issuing)).status, 200);
    const opaque = delegatedSeen();
    assert.ok(!opaque.startsWith('eyJ'), 'an opaque delegated token, issued to the SPIFFE client');
    upstream.requests.length = 0; // from here on it is a subject, which the upstream must never see
    const gateway = await gatewayWith(parameters(variable));
    assert.equal((await call(gateway, opaque)).status, 200);
    assert.equal(claims(delegatedSeen()).sub, person);
    assert.ok(!upstream.requests[0]!.rawHeaders.join('\n').includes(opaque));
  });

  it('from the SPIFFE Workload API: asks for an SVID for both the token endpoint and the issuer, and delegates with it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gw-svid-client-'));
    const agent = new FakeAgent(join(dir, 'agent.sock'));
    const svid = await trustDomain.svid({ sub: GATEWAY, aud: [`${t.service.issuer}/oauth2/tokens`, t.service.issuer] });
    agent.respond = () => ({ svids: [{ spiffe_id: GATEWAY, svid, hint: '' }] });
    await agent.start();
    try {
      const gateway = await launchGateway(
        configOf({
          ...parameters('unused'),
          actor_svid_env_var: undefined,
          actor_svid_source: 'workload_api',
          actor_workload_api_socket: `unix://${agent.path}`,
        }),
        pino({ level: 'silent' }),
      );
      gateways.push(gateway);
      assert.equal((await call(gateway)).status, 200);
      assert.deepEqual(claims(delegatedSeen()).act, { sub: GATEWAY });
      assert.deepEqual(agent.received[0]!.audience, [`${t.url}/oauth2/tokens`, t.url], 'the actor audience, then the issuer the client assertion names');
    } finally {
      agent.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  const faults: [string, () => Promise<Record<string, unknown>>, number, string][] = [
    [
      'a token endpoint that is down',
      async () => parameters(await svidIn('TEST_SVID_DOWN'), { service_base_url: await closedPortUrl('') }),
      502,
      'GATEWAY_TOKEN_ENDPOINT_UNREACHABLE',
    ],
    [
      'an SVID of a SPIFFE ID the client is not registered with',
      async () => parameters(await svidIn('TEST_SVID_OTHER', { sub: 'spiffe://example.org/other' })),
      502,
      'GATEWAY_CLIENT_REFUSED',
    ],
    // The environment source hands the SVID over as it is: the service refuses it as the client's credential.
    ['an expired SVID', async () => parameters(await svidIn('TEST_SVID_EXPIRED', { iat: 1_700_000_000, exp: 1_700_000_060 })), 502, 'GATEWAY_CLIENT_REFUSED'],
    ['an SVID source that holds nothing (a broken SVID source)', async () => parameters('TEST_SVID_UNSET'), 502, 'GATEWAY_ACTOR_UNAVAILABLE'],
  ];
  for (const [name, given, status, code] of faults) {
    it(`answers ${status} ${code} for ${name}, and the upstream receives nothing`, async () => {
      const gateway = await gatewayWith(await given());
      const response = await call(gateway);
      const body = await response.text();
      assert.deepEqual([response.status, JSON.parse(body).errors[0].code], [status, code], body);
      assert.ok(!body.includes(personToken), "the answer does not echo the caller's token");
      assert.equal(upstream.requests.length, 0);
    });
  }
});
