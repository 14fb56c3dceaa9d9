import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createLocalJWKSet, type JSONWebKeySet, jwtVerify } from 'jose';
import { ACCESS_TOKEN_TYPE, type ClientCredentials, createPerson, introspect, mintPersonToken, registerClient } from '../helpers/oauth.ts';
import { type RecordingUpstream, startRecordingUpstream } from '../helpers/recording-upstream.ts';
import {
  createOrg,
  type FreshDatabase,
  freshDatabase,
  type GatewayProcess,
  postgresServerUrl,
  REPLICA_ISSUER,
  type Replica,
  startAll,
  startGatewayProcess,
  startReplicas,
} from '../helpers/replicas.ts';
import type { TestOrg } from '../helpers/service.ts';

const server = postgresServerUrl();
const CALLERS = 10;
const CALLS = 60;

if (server) {
  describe('Two gateway processes in front of two service processes on one PostgreSQL', () => {
    let database: FreshDatabase;
    let upstream: RecordingUpstream;
    let replicas: Replica[] = [];
    let gateways: GatewayProcess[] = [];
    let org: TestOrg;
    let client: ClientCredentials;

    before(async () => {
      [database, upstream] = await Promise.all([freshDatabase(server), startRecordingUpstream()]);
      replicas = await startReplicas(2, { databaseUrl: database.url });
      org = await createOrg(database.url);
      client = await registerClient(replicas[0]!.t, org, { scopes: ['orders:read'] });
      // Gateway i asks replica i. No delegated-token cache: every call is an exchange at a replica.
      // The first forwards a JWT, the second an opaque token.
      gateways = await startAll(
        replicas.map((replica, i) =>
          startGatewayProcess({
            serviceUrl: replica.url,
            client,
            upstreamUrl: upstream.url,
            ...(i === 1 ? { requestedTokenType: ACCESS_TOKEN_TYPE } : {}),
            env: { GATEWAY_PLUGINS_0_PARAMETERS_CACHE_DELEGATED_TOKENS: 'false' },
          }),
        ),
      );
    });
    after(async () => {
      await Promise.all([...gateways, ...replicas].map((process) => process.kill('SIGKILL')));
      await Promise.all([database?.drop(), upstream?.close()]);
    });

    /** CALLERS persons, each with a person JWT minted on one or the other replica. */
    const callers = async () =>
      Promise.all(
        Array.from({ length: CALLERS }, async (_, i) => {
          const id = await createPerson(replicas[i % 2]!.t, org);
          return { id, token: await mintPersonToken(replicas[(i + 1) % 2]!.t, org, id, { scope: 'orders:read' }) };
        }),
      );
    const call = (gateway: GatewayProcess, path: string, token: string) => fetch(`${gateway.url}${path}`, { headers: { authorization: `Bearer ${token}` } });

    it(`forwards only delegated tokens of the service under ${CALLS} concurrent calls, never a caller's own`, async () => {
      const people = await callers();
      const seen = upstream.requests.length;
      const answers = await Promise.all(
        Array.from({ length: CALLS }, async (_, i) => {
          const response = await call(gateways[i % 2]!, `/orders/${i}`, people[i % CALLERS]!.token);
          return { status: response.status, body: await response.text() };
        }),
      );
      assert.deepEqual(
        answers.filter((answer) => answer.status !== 200),
        [],
      );
      const received = upstream.requests.slice(seen);
      assert.equal(received.length, CALLS);

      const jwks = createLocalJWKSet((await replicas[1]!.t.call('GET', '/.well-known/jwks.json')).body as JSONWebKeySet);
      for (const request of received) {
        const i = Number(/^\/orders\/(\d+)$/.exec(request.url)?.[1]);
        const caller = people[i % CALLERS]!;
        const everything = [request.url, request.body, ...request.rawHeaders].join('\n');
        for (const person of people) assert.ok(!everything.includes(person.token), `call ${i}: a caller's own token reached the upstream`);
        const delegated = /^Bearer (\S+)$/.exec(request.headers.authorization ?? '')?.[1];
        assert.ok(delegated, `call ${i}: no delegated token`);
        if (i % 2 === 0) {
          // A JWT signed by the service's key, for the caller, with the gateway's client as the actor.
          const { payload } = await jwtVerify(delegated, jwks, { issuer: REPLICA_ISSUER, audience: REPLICA_ISSUER, typ: 'at+jwt' });
          assert.deepEqual([payload.sub, payload.act], [caller.id, { sub: client.id }], `call ${i}`);
        } else {
          // An opaque token the service issued: the replica the gateway did not ask knows it.
          const { body } = await introspect(replicas[0]!.t, delegated, org);
          assert.deepEqual([body.active, body.sub, body.client_id, body.act], [true, caller.id, client.id, { sub: client.id }], `call ${i}`);
        }
      }
    });

    it('refuses, through the gateway in front of the other replica, a caller deleted on one, and forwards nothing', async () => {
      const [caller] = await callers();
      assert.equal((await call(gateways[1]!, '/orders/before', caller!.token)).status, 200);
      assert.equal((await replicas[0]!.t.call('DELETE', `/persons/${caller!.id}`, { as: org })).status, 204);
      const seen = upstream.requests.length;
      const refused = await Promise.all(gateways.map((gateway) => call(gateway, '/orders/after', caller!.token)));
      for (const response of refused) {
        assert.equal(response.status, 502);
        assert.equal(((await response.json()) as { errors: { code: string }[] }).errors[0]!.code, 'GATEWAY_SUBJECT_REFUSED');
      }
      assert.equal(upstream.requests.length, seen, 'nothing reached the upstream');
    });
  });
}
