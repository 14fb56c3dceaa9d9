import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { after, before, beforeEach, describe, it } from 'node:test';
import { pino } from 'pino';
import { readGatewayConfig } from '../../src/gateway/config/gateway-config.ts';
import { launchGateway } from '../../src/gateway/launch.ts';
import type { RunningGateway } from '../../src/gateway/lifecycle.ts';
import { fileKey, GatewayConfigError } from '../../src/gateway/settings/config-error.ts';
import { EXCHANGE } from '../helpers/oauth.ts';
import { type RecordingUpstream, startRecordingUpstream } from '../helpers/recording-upstream.ts';

const JWT_SPIFFE = 'urn:ietf:params:oauth:client-assertion-type:jwt-spiffe';
const SVID = 'eyJhbGciOiJFUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJzcGlmZmU6Ly9leGFtcGxlLm9yZy9nYXRld2F5In0.c2ln';
const SUBJECT = 'eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJwZXJzb24ifQ.c3ViamVjdA';

/**
 * A token endpoint that records each form it is sent and answers every grant with a token, or
 * refuses the client when told to: the gateway's side of SPIFFE client authentication on the
 * wire (client-svid-exchange.test.ts runs it against the real service).
 */
async function startRecordingTokenEndpoint() {
  const received: { form: URLSearchParams; headers: IncomingHttpHeaders }[] = [];
  const state = { refuseClient: false };
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
      received.push({ form, headers: request.headers });
      const [status, body] = state.refuseClient
        ? [401, { error: 'invalid_client', error_description: 'client authentication failed' }]
        : [200, { access_token: form.get('grant_type') === EXCHANGE ? 'delegated-token' : 'gateway-token', token_type: 'Bearer', expires_in: 300 }];
      response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    received,
    state,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('Gateway client authentication with its JWT-SVID (oauth_client_auth: svid)', () => {
  let endpoint: Awaited<ReturnType<typeof startRecordingTokenEndpoint>>;
  let upstream: RecordingUpstream;
  const gateways: RunningGateway[] = [];

  const configWith = (envVar: string) =>
    readGatewayConfig(
      {
        port: 0,
        admin_port: 0,
        default_target: upstream.url,
        plugins: [
          {
            type: 'token-exchange',
            id: 'svid',
            parameters: {
              service_base_url: endpoint.url,
              subject_header_with_token: 'Authorization',
              actor_mode: 'gate_svid',
              actor_svid_source: 'env',
              actor_svid_env_var: envVar,
              oauth_client_id: 'cli_svid',
              oauth_client_auth: 'svid',
              requested_token_type: 'urn:ietf:params:oauth:token-type:jwt',
            },
          },
        ],
      },
      fileKey,
    );
  const launch = async (envVar: string) => {
    const gateway = await launchGateway(configWith(envVar), pino({ level: 'silent' }));
    gateways.push(gateway);
    return gateway;
  };

  before(async () => {
    [endpoint, upstream] = await Promise.all([startRecordingTokenEndpoint(), startRecordingUpstream()]);
    process.env.TEST_GATEWAY_SVID = SVID;
  });
  after(async () => {
    for (const gateway of gateways) await gateway.close();
    await Promise.all([endpoint.close(), upstream.close()]);
  });
  beforeEach(() => {
    endpoint.received.length = 0;
    upstream.requests.length = 0;
    endpoint.state.refuseClient = false;
  });

  it('presents the actor SVID as a jwt-spiffe client assertion with client_id, at start-up and on each exchange, with no secret', async () => {
    const gateway = await launch('TEST_GATEWAY_SVID');
    const response = await fetch(`${gateway.url}/orders/1`, { headers: { authorization: `Bearer ${SUBJECT}` } });
    assert.equal(response.status, 200);
    assert.equal(upstream.requests[0]!.headers.authorization, 'Bearer delegated-token');
    assert.ok(!upstream.requests[0]!.rawHeaders.join('\n').includes(SUBJECT), "the caller's token did not reach the upstream");
    assert.deepEqual(
      endpoint.received.map(({ form }) => form.get('grant_type')),
      ['client_credentials', EXCHANGE],
    );
    for (const { form, headers } of endpoint.received) {
      assert.equal(headers.authorization, undefined, 'no Basic credentials');
      assert.deepEqual(
        [form.get('client_id'), form.get('client_assertion_type'), form.get('client_assertion'), form.get('client_secret')],
        ['cli_svid', JWT_SPIFFE, SVID, null],
      );
    }
    const exchange = endpoint.received[1]!.form;
    assert.deepEqual([exchange.get('subject_token'), exchange.get('actor_token')], [SUBJECT, SVID], 'the same SVID is the actor and the client');
  });

  it('starts not ready while it holds no SVID, asking the token endpoint nothing', async () => {
    const gateway = await launch('TEST_GATEWAY_SVID_UNSET');
    const readiness = await fetch(`${gateway.adminUrl}/readyz`);
    assert.equal(readiness.status, 503);
    assert.match(((await readiness.json()) as { result: { reasons: string[] } }).result.reasons[0]!, /TEST_GATEWAY_SVID_UNSET holds no SVID/);
    assert.equal(endpoint.received.length, 0);
  });

  it('stops start-up when the token endpoint refuses the client, naming the keys and not the SVID', async () => {
    endpoint.state.refuseClient = true;
    await assert.rejects(launch('TEST_GATEWAY_SVID'), (error: unknown) => {
      assert.ok(error instanceof GatewayConfigError, String(error));
      assert.equal(error.key, 'plugins[0].parameters.oauth_client_auth');
      assert.match(
        error.message,
        /check plugins\[0\]\.parameters\.oauth_client_id and plugins\[0\]\.parameters\.oauth_client_auth \(and the SPIFFE ID registered for the client\)$/,
      );
      assert.ok(!error.message.includes(SVID));
      return true;
    });
    assert.equal(endpoint.received[0]!.form.get('client_assertion'), SVID);
  });
});
