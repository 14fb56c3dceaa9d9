import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { backends } from '../helpers/backends.ts';
import {
  ACCESS_TOKEN_TYPE,
  type ClientCredentials,
  clientToken,
  createPerson,
  EXCHANGE,
  JWT_TYPE,
  mintPersonToken,
  oauthPost,
  registerClient,
  token,
} from '../helpers/oauth.ts';
import { startTestService, type TestOrg, type TestService } from '../helpers/service.ts';

for (const backend of backends()) {
  describe(`Introspection and revocation on ${backend.name}`, () => {
    let t: TestService;
    let org: TestOrg;
    let gateway: ClientCredentials;
    let personToken: string;
    const introspect = async (value: string, client = gateway) => oauthPost(t, '/oauth2/tokens/introspect', { token: value }, client);
    const revoke = (value: string, client = gateway) => oauthPost(t, '/oauth2/tokens/revoke', { token: value }, client);
    const exchangeOpaque = async (subject: string, type = ACCESS_TOKEN_TYPE) =>
      (await token(t, { grant_type: EXCHANGE, subject_token: subject, subject_token_type: type }, gateway)).body.access_token as string;

    before(async () => {
      t = await startTestService(backend);
      org = await t.org();
      gateway = await registerClient(t, org);
      personToken = await mintPersonToken(t, org, await createPerson(t, org), { scope: 'orders:read' });
    });
    after(() => t.close());

    it('introspects opaque and JWT tokens of the organisation (RFC 7662)', async () => {
      const opaque = await exchangeOpaque(personToken, JWT_TYPE);
      const response = await introspect(opaque);
      assert.equal(response.status, 200);
      assert.equal(response.headers.get('cache-control'), 'no-store');
      const { exp, iat, ...rest } = response.body;
      assert.ok(exp > iat);
      assert.deepEqual(Object.keys(rest).sort(), ['act', 'active', 'client_id', 'iss', 'oid', 'scope', 'sub', 'token_type']);
      assert.equal(rest.active, true);
      const jwt = (await token(t, { grant_type: EXCHANGE, subject_token: personToken, subject_token_type: JWT_TYPE, requested_token_type: JWT_TYPE }, gateway))
        .body.access_token;
      const jwtInfo = (await introspect(jwt)).body;
      assert.deepEqual([jwtInfo.active, jwtInfo.act, jwtInfo.aud], [true, { sub: gateway.id }, [t.service.issuer]]);
    });

    it('answers active:false for garbage, foreign, revoked and unknown tokens', async () => {
      const foreign = await t.org();
      const foreignClient = await registerClient(t, foreign);
      const foreignToken = await clientToken(t, foreignClient);
      for (const value of ['garbage', 'tat_unknown', foreignToken, 'eyJhbGciOiJub25lIn0.e30.']) {
        assert.deepEqual((await introspect(value)).body, { active: false }, value.slice(0, 12));
      }
    });

    it('requires client authentication (401 invalid_client)', async () => {
      const anonymous = await oauthPost(t, '/oauth2/tokens/introspect', { token: 'x' });
      assert.deepEqual([anonymous.status, anonymous.body.error], [401, 'invalid_client']);
      const revokeAnonymously = await oauthPost(t, '/oauth2/tokens/revoke', { token: 'x' });
      assert.deepEqual([revokeAnonymously.status, revokeAnonymously.body.error], [401, 'invalid_client']);
    });

    it('revoking an opaque token revokes everything exchanged from it, transitively', async () => {
      const root = await exchangeOpaque(personToken, JWT_TYPE);
      const child = await exchangeOpaque(root);
      const grandchild = await exchangeOpaque(child);
      const unrelated = await exchangeOpaque(personToken, JWT_TYPE);
      assert.equal((await revoke(root)).status, 200);
      for (const value of [root, child, grandchild]) assert.equal((await introspect(value)).body.active, false);
      assert.equal((await introspect(unrelated)).body.active, true);
      const again = await token(t, { grant_type: EXCHANGE, subject_token: child, subject_token_type: ACCESS_TOKEN_TYPE }, gateway);
      assert.equal(again.body.error, 'invalid_request');
    });

    it("stops a deleted client's and a deleted person's tokens", async () => {
      // Introspected with the admin key, which sees every token of the organisation: the
      // answers change because of the deletions, not because of who asks.
      const active = async (value: string) => (await oauthPost(t, '/oauth2/tokens/introspect', { token: value }, undefined, org.headers)).body.active;
      const doomed = await registerClient(t, org, { client_name: 'doomed' });
      const ccToken = await clientToken(t, doomed);
      const jwtClient = await registerClient(t, org, { client_name: 'doomed-jwt', access_token_format: 'jwt' });
      const ccJwt = await clientToken(t, jwtClient);
      assert.equal(await active(ccJwt), true);
      assert.equal((await t.call('DELETE', `/oauth2/clients/${jwtClient.id}`, { as: org })).status, 204);
      assert.equal(await active(ccJwt), false);
      const person = await createPerson(t, org);
      const personJwt = await mintPersonToken(t, org, person);
      const delegated = await exchangeOpaque(personJwt, JWT_TYPE);
      for (const value of [ccToken, personJwt, delegated]) assert.equal(await active(value), true);
      assert.equal((await t.call('DELETE', `/oauth2/clients/${doomed.id}`, { as: org })).status, 204);
      assert.equal((await t.call('DELETE', `/persons/${person}`, { as: org })).status, 204);
      for (const value of [ccToken, personJwt, delegated]) assert.equal(await active(value), false);
    });

    it("answers 200 for unknown tokens, refuses JWTs and another client's tokens", async () => {
      assert.equal((await revoke('tat_never_issued')).status, 200);
      const jwt = (await token(t, { grant_type: EXCHANGE, subject_token: personToken, subject_token_type: JWT_TYPE, requested_token_type: JWT_TYPE }, gateway))
        .body.access_token;
      const refused = await revoke(jwt);
      assert.deepEqual([refused.status, refused.body.error], [400, 'unsupported_token_type']);
      const other = await registerClient(t, org, { client_name: 'other' });
      const mine = await exchangeOpaque(personToken, JWT_TYPE);
      const theirs = await revoke(mine, other);
      assert.deepEqual([theirs.status, theirs.body.error], [400, 'unauthorized_client']);
      assert.equal((await introspect(mine)).body.active, true);
    });
  });
}
