import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { backends } from '../helpers/backends.ts';
import {
  ACCESS_TOKEN_TYPE,
  type ClientCredentials,
  claims,
  clientToken,
  createPerson,
  EXCHANGE,
  JWT_TYPE,
  mintPersonToken,
  type OAuthResponse,
  registerClient,
  token,
} from '../helpers/oauth.ts';
import { startTestService, type TestOrg, type TestService } from '../helpers/service.ts';

/** How a client_credentials token of each access_token_format is presented as a subject. */
const FORMS = [
  { format: 'opaque', subjectTokenType: ACCESS_TOKEN_TYPE },
  { format: 'jwt', subjectTokenType: JWT_TYPE },
] as const;

for (const backend of backends()) {
  describe(`A client's own token as subject_token on ${backend.name}`, () => {
    let t: TestService;
    let org: TestOrg;
    let other: ClientCredentials;
    let otherToken: string;

    const refused = (response: OAuthResponse, status: number, error: string, description: RegExp) => {
      assert.equal(response.status, status, JSON.stringify(response.body));
      assert.equal(response.body.error, error);
      assert.match(response.body.error_description, description);
      assert.equal(response.body.access_token, undefined);
      if (status === 401) assert.match(response.headers.get('www-authenticate') ?? '', /^Basic /);
    };

    before(async () => {
      t = await startTestService(backend);
      org = await t.org();
      other = await registerClient(t, org, { client_name: 'other' });
      otherToken = await clientToken(t, other);
    });
    after(() => t.close());

    for (const { format, subjectTokenType } of FORMS) {
      describe(`${format} form`, () => {
        let self: ClientCredentials;
        let selfToken: string;
        const exchange = (by: ClientCredentials | undefined, extra: Record<string, string> = {}) =>
          token(t, { grant_type: EXCHANGE, subject_token: selfToken, subject_token_type: subjectTokenType, ...extra }, by);

        before(async () => {
          self = await registerClient(t, org, { client_name: `self-${format}`, access_token_format: format });
          selfToken = await clientToken(t, self);
          assert.equal(selfToken.startsWith('tat_'), format === 'opaque');
        });

        it('is exchanged by that client: the client acting for itself', async () => {
          const response = await exchange(self, { requested_token_type: JWT_TYPE });
          assert.equal(response.status, 200, JSON.stringify(response.body));
          const payload = claims(response.body.access_token);
          assert.deepEqual([payload.sub, payload.client_id, payload.act], [self.id, self.id, { sub: self.id }]);
        });

        it('is bound to that client: without client authentication, 401 invalid_client', async () => {
          refused(
            await exchange(undefined, { actor_token: otherToken, actor_token_type: ACCESS_TOKEN_TYPE }),
            401,
            'invalid_client',
            /^subject_token is bound to a client/,
          );
        });

        it('is bound to that client: presented by another client, 400 invalid_request', async () => {
          refused(await exchange(other), 400, 'invalid_request', /^subject_token was issued to another client/);
        });
      });
    }

    it('regression: a client_credentials JWT was refused as subject_token while its opaque form was accepted', async () => {
      const client = await registerClient(t, org, { client_name: 'jwt-regression', access_token_format: 'jwt' });
      const response = await token(t, { grant_type: EXCHANGE, subject_token: await clientToken(t, client), subject_token_type: JWT_TYPE }, client);
      assert.equal(response.status, 200, JSON.stringify(response.body));
    });

    it("refuses a deleted client's opaque token: 400 invalid_request (revoked with the client)", async () => {
      const doomed = await registerClient(t, org, { client_name: 'doomed-opaque' });
      const value = await clientToken(t, doomed);
      assert.equal((await t.call('DELETE', `/oauth2/clients/${doomed.id}`, { as: org })).status, 204);
      const response = await token(t, { grant_type: EXCHANGE, subject_token: value, subject_token_type: ACCESS_TOKEN_TYPE }, other);
      refused(response, 400, 'invalid_request', /^subject_token has been revoked/);
    });

    it("refuses a deleted client's JWT: 400 invalid_request, with or without another client", async () => {
      const doomed = await registerClient(t, org, { client_name: 'doomed-jwt', access_token_format: 'jwt' });
      const value = await clientToken(t, doomed);
      assert.equal((await t.call('DELETE', `/oauth2/clients/${doomed.id}`, { as: org })).status, 204);
      const byOther = await token(t, { grant_type: EXCHANGE, subject_token: value, subject_token_type: JWT_TYPE }, other);
      refused(byOther, 400, 'invalid_request', /^subject_token: the client it was issued to no longer exists/);
      const clientless = await token(t, {
        grant_type: EXCHANGE,
        subject_token: value,
        subject_token_type: JWT_TYPE,
        actor_token: otherToken,
        actor_token_type: ACCESS_TOKEN_TYPE,
      });
      refused(clientless, 400, 'invalid_request', /^subject_token: the client it was issued to no longer exists/);
    });

    it('leaves person JWT subjects unbound: exchanged clientless, or by any client of the organisation', async () => {
      const personToken = await mintPersonToken(t, org, await createPerson(t, org));
      const clientless = await token(t, {
        grant_type: EXCHANGE,
        subject_token: personToken,
        subject_token_type: JWT_TYPE,
        actor_token: otherToken,
        actor_token_type: ACCESS_TOKEN_TYPE,
      });
      assert.equal(clientless.status, 200, JSON.stringify(clientless.body));
      const byOther = await token(t, { grant_type: EXCHANGE, subject_token: personToken, subject_token_type: JWT_TYPE }, other);
      assert.equal(byOther.status, 200, JSON.stringify(byOther.body));
    });
  });
}
