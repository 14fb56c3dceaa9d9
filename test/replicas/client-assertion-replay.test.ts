import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { oauthPost } from '../helpers/oauth.ts';
import { createOrg, type FreshDatabase, freshDatabase, postgresServerUrl, REPLICA_ISSUER, type Replica, startReplicas } from '../helpers/replicas.ts';

const server = postgresServerUrl();
const ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
const ROUNDS = 20;

if (server) {
  describe('A private_key_jwt assertion is accepted once across two service processes on one PostgreSQL (issue 29)', () => {
    let database: FreshDatabase;
    let replicas: Replica[] = [];
    let clientId: string;
    let sign: () => Promise<string>;

    before(async () => {
      database = await freshDatabase(server);
      replicas = await startReplicas(2, { databaseUrl: database.url });
      const org = await createOrg(database.url);
      const { privateKey, publicKey } = await generateKeyPair('ES256');
      const registered = await replicas[0]!.t.call('POST', '/oauth2/clients', {
        as: org,
        body: {
          client_name: 'keyed',
          grant_types: ['client_credentials'],
          token_endpoint_auth_method: 'private_key_jwt',
          jwks: { keys: [{ ...(await exportJWK(publicKey)), kid: 'k' }] },
        },
      });
      assert.equal(registered.status, 201, JSON.stringify(registered.body));
      clientId = registered.body.result.client_id;
      sign = () =>
        new SignJWT({ jti: randomUUID() })
          .setProtectedHeader({ alg: 'ES256', kid: 'k' })
          .setIssuer(clientId)
          .setSubject(clientId)
          .setAudience(REPLICA_ISSUER)
          .setExpirationTime('2m')
          .sign(privateKey);
    });
    after(async () => {
      await Promise.all(replicas.map((replica) => replica.kill('SIGKILL')));
      await database?.drop();
    });

    it(`sends each of ${ROUNDS} assertions to both replicas at once: one 200 and one 401 invalid_client every time`, async () => {
      for (let round = 0; round < ROUNDS; round++) {
        const assertion = await sign();
        const answers = await Promise.all(
          replicas.map((replica) =>
            oauthPost(replica.t, '/oauth2/tokens', { grant_type: 'client_credentials', client_assertion_type: ASSERTION_TYPE, client_assertion: assertion }),
          ),
        );
        assert.deepEqual(answers.map((a) => a.status).sort(), [200, 401], JSON.stringify(answers.map((a) => a.body)));
        assert.match(answers.find((a) => a.status === 401)!.body.error_description, /used already/);
      }
    });
  });
}
