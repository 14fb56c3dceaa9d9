import assert from 'node:assert/strict';
import type { KeyObject } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { backends } from '../helpers/backends.ts';
import {
  ACCESS_TOKEN_TYPE,
  type ClientCredentials,
  clientToken,
  createPerson,
  EXCHANGE,
  forgeServiceJwt,
  introspect,
  JWT_TYPE,
  mintPersonToken,
  type OAuthResponse,
  oauthPost,
  registerClient,
  serviceSigningKey,
  token,
} from '../helpers/oauth.ts';
import { startTestService, type TestOrg, type TestService } from '../helpers/service.ts';

for (const backend of backends()) {
  describe(`Who may introspect what (RFC 7662 §2.1) on ${backend.name}`, () => {
    let t: TestService;
    let org: TestOrg;
    let foreign: TestOrg;
    let alpha: ClientCredentials;
    let beta: ClientCredentials;
    let person: string;
    let personToken: string;
    let key: { kid: string; privateKey: KeyObject };
    const tokens: Record<string, string> = {};

    const active = async (value: string, as: ClientCredentials | TestOrg | Record<string, string>) => {
      const response = await introspect(t, value, as);
      assert.equal(response.status, 200, JSON.stringify(response.body));
      assert.equal(response.headers.get('cache-control'), 'no-store');
      if (response.body.active === false) assert.deepEqual(response.body, { active: false }, 'an inactive answer says nothing else');
      return response.body.active as boolean;
    };
    const unauthenticated = (response: OAuthResponse, description: RegExp) => {
      assert.equal(response.status, 401, JSON.stringify(response.body));
      assert.equal(response.body.error, 'invalid_client');
      assert.match(response.body.error_description, description);
      assert.match(response.headers.get('www-authenticate') ?? '', /^Basic /);
      assert.equal(response.body.active, undefined);
    };
    const exchange = async (params: Record<string, string>, client?: ClientCredentials) => {
      const response = await token(t, { grant_type: EXCHANGE, ...params }, client);
      assert.equal(response.status, 200, JSON.stringify(response.body));
      return response.body.access_token as string;
    };

    before(async () => {
      t = await startTestService(backend);
      org = await t.org();
      foreign = await t.org();
      alpha = await registerClient(t, org, { client_name: 'alpha' });
      beta = await registerClient(t, org, { client_name: 'beta', access_token_format: 'jwt' });
      person = await createPerson(t, org);
      personToken = await mintPersonToken(t, org, person, { scope: 'orders:read' });
      key = await serviceSigningKey(t);
      const personSubject = { subject_token: personToken, subject_token_type: JWT_TYPE };
      tokens.alphaOwnOpaque = await clientToken(t, alpha);
      tokens.betaOwnJwt = await clientToken(t, beta);
      tokens.issuedToAlphaOpaque = await exchange(personSubject, alpha);
      tokens.issuedToAlphaJwt = await exchange({ ...personSubject, requested_token_type: JWT_TYPE }, alpha);
      // Clientless, with alpha's own token as the actor: no client_id, act.sub = alpha.
      tokens.throughAlpha = await exchange({
        ...personSubject,
        actor_token: tokens.alphaOwnOpaque,
        actor_token_type: ACCESS_TOKEN_TYPE,
        requested_token_type: JWT_TYPE,
      });
      // Exchanged on by beta acting: act = { sub: beta, act: { sub: alpha } }, no client_id.
      tokens.throughBetaAfterAlpha = await exchange({
        subject_token: tokens.throughAlpha,
        subject_token_type: JWT_TYPE,
        actor_token: tokens.betaOwnJwt,
        actor_token_type: JWT_TYPE,
      });
      // Only its sub names alpha: no client_id, no act.
      tokens.subjectAlphaOnly = await forgeServiceJwt(t, key, { orgId: org.orgId, subject: alpha.id });
    });
    after(() => t.close());

    describe('a client', () => {
      it('may introspect a token issued to it (client_id), opaque or JWT', async () => {
        assert.equal(await active(tokens.issuedToAlphaOpaque!, alpha), true);
        assert.equal(await active(tokens.issuedToAlphaJwt!, alpha), true);
      });

      it('may introspect its own client_credentials token, opaque or JWT', async () => {
        assert.equal(await active(tokens.alphaOwnOpaque!, alpha), true);
        assert.equal(await active(tokens.betaOwnJwt!, beta), true);
      });

      it('may introspect a token whose subject it is, even without its client_id', async () => {
        assert.equal(await active(tokens.subjectAlphaOnly!, alpha), true);
        assert.equal(await active(tokens.subjectAlphaOnly!, beta), false);
      });

      it('may introspect a token exchanged through it (it is the top-level act.sub)', async () => {
        assert.equal(await active(tokens.throughAlpha!, alpha), true);
        assert.equal(await active(tokens.throughBetaAfterAlpha!, beta), true);
      });

      it('may not introspect a token in which it is only an earlier actor', async () => {
        assert.equal(await active(tokens.throughBetaAfterAlpha!, alpha), false);
      });

      it("regression: any client of the organisation could introspect every one of its tokens; another client's answer is active:false", async () => {
        for (const value of [tokens.issuedToAlphaOpaque!, tokens.issuedToAlphaJwt!, tokens.alphaOwnOpaque!, tokens.throughAlpha!]) {
          assert.equal(await active(value, beta), false);
        }
        assert.equal(await active(tokens.betaOwnJwt!, alpha), false);
      });

      it("may not introspect a person's minted JWT, which names no client", async () => {
        assert.equal(await active(personToken, alpha), false);
      });
    });

    describe('an admin API key', () => {
      it('may introspect every token of its organisation', async () => {
        for (const [name, value] of Object.entries(tokens)) {
          const response = await introspect(t, value, org);
          assert.equal(response.body.active, true, name);
        }
        const minted = (await introspect(t, personToken, org)).body;
        assert.deepEqual([minted.active, minted.sub, minted.oid, minted.client_id], [true, person, org.orgId, undefined]);
      });

      it("answers active:false for another organisation's key", async () => {
        assert.equal(await active(tokens.issuedToAlphaOpaque!, foreign), false);
        assert.equal(await active(personToken, foreign), false);
      });

      it('refuses an integration key: 401 invalid_client', async () => {
        const created = await t.call('POST', '/organizations/api-keys', { as: org, body: { name: 'reporting', kind: 'integration' } });
        assert.equal(created.status, 201, JSON.stringify(created.body));
        const headers = { 'service-orgid': org.orgId, 'service-api-key': created.body.result.api_key };
        unauthenticated(await introspect(t, personToken, headers), /Service-API-Key: an integration key may not use this operation/);
      });

      it('refuses a wrong key, an unknown organisation and a key without Service-OrgID: 401 invalid_client', async () => {
        unauthenticated(
          await introspect(t, personToken, { 'service-orgid': org.orgId, 'service-api-key': 'tsk_wrong' }),
          /Service-API-Key: is not a valid key/,
        );
        unauthenticated(
          await introspect(t, personToken, { 'service-orgid': foreign.orgId, 'service-api-key': org.apiKey }),
          /Service-API-Key: is not a valid key/,
        );
        unauthenticated(await introspect(t, personToken, { 'service-orgid': 'org_unknown', 'service-api-key': org.apiKey }), /Service-OrgID: no organisation/);
        unauthenticated(await introspect(t, personToken, { 'service-api-key': org.apiKey }), /Service-OrgID: is required/);
      });

      it('refuses a key together with client credentials: 400 invalid_request', async () => {
        const both = await oauthPost(t, '/oauth2/tokens/introspect', { token: personToken }, alpha, org.headers);
        assert.deepEqual([both.status, both.body.error], [400, 'invalid_request']);
        assert.match(both.body.error_description, /client credentials or Service-API-Key, not both/);
      });

      it('may not revoke: revocation stays client-only (401 invalid_client)', async () => {
        const response = await oauthPost(t, '/oauth2/tokens/revoke', { token: tokens.issuedToAlphaOpaque! }, undefined, org.headers);
        unauthenticated(response, /requires client authentication/);
        assert.equal(await active(tokens.issuedToAlphaOpaque!, alpha), true);
      });
    });

    it('refuses a request with neither: 401 invalid_client', async () => {
      unauthenticated(
        await oauthPost(t, '/oauth2/tokens/introspect', { token: personToken }),
        /requires client authentication or an organisation admin API key/,
      );
    });
  });
}
