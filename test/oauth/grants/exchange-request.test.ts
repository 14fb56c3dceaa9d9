import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { backends } from '../../helpers/backends.ts';
import {
  ACCESS_TOKEN_TYPE,
  type ClientCredentials,
  claims,
  createPerson,
  EXCHANGE,
  JWT_TYPE,
  mintPersonToken,
  type OAuthResponse,
  registerClient,
  token,
} from '../../helpers/oauth.ts';
import { startTestService, type TestOrg, type TestService } from '../../helpers/service.ts';

/** RFC 8693 §2.1 parameters refused before any token is read (src/oauth/grants/exchange-request.ts). */
for (const backend of backends()) {
  describe(`Token exchange request parameters on ${backend.name}`, () => {
    let t: TestService;
    let org: TestOrg;
    let gateway: ClientCredentials;
    let subject: string;

    before(async () => {
      t = await startTestService(backend);
      org = await t.org();
      gateway = await registerClient(t, org);
      subject = await mintPersonToken(t, org, await createPerson(t, org), { scope: 'orders:read' });
    });
    after(() => t.close());

    const exchange = (params: Record<string, string | string[]>) =>
      token(t, { grant_type: EXCHANGE, subject_token: subject, subject_token_type: JWT_TYPE, ...params }, gateway);
    const refusal = (response: OAuthResponse) => [response.status, response.body.error, response.body.error_description, response.body.access_token];

    it('grants the plain request, so each refusal below is about the parameter it adds', async () => {
      assert.equal((await exchange({})).status, 200);
      assert.equal((await exchange({ scope: 'orders:read', resource: 'https://orders.example/api', audience: 'orders' })).status, 200);
    });

    it('takes actor_token with its actor_token_type, and refuses either without the other', async () => {
      const actor = await createPerson(t, org);
      const actorToken = await mintPersonToken(t, org, actor);
      const delegated = await exchange({ actor_token: actorToken, actor_token_type: JWT_TYPE, requested_token_type: JWT_TYPE });
      assert.equal(delegated.status, 200, JSON.stringify(delegated.body));
      assert.deepEqual(claims(delegated.body.access_token).act, { sub: actor });
      assert.deepEqual(refusal(await exchange({ actor_token: actorToken })), [
        400,
        'invalid_request',
        'actor_token_type is required with actor_token',
        undefined,
      ]);
      for (const type of [JWT_TYPE, ACCESS_TOKEN_TYPE]) {
        assert.deepEqual(refusal(await exchange({ actor_token_type: type })), [
          400,
          'invalid_request',
          'actor_token_type was sent without actor_token',
          undefined,
        ]);
      }
    });

    it('refuses a scope that is not scope tokens (RFC 6749 §3.3) as a malformed request, not as a scope beyond the subject', async () => {
      for (const scope of ['orders:read "x"', 'orders\\read', 'orders:read\u00e9']) {
        assert.deepEqual(refusal(await exchange({ scope })), [400, 'invalid_request', 'scope is not a space-delimited list of scope tokens', undefined], scope);
      }
    });

    it('refuses a resource that is not an absolute URI without a fragment, quoting at most its first 200 characters', async () => {
      const refused = (uri: string) => [400, 'invalid_target', `resource ${JSON.stringify(uri)} must be an absolute URI without a fragment`, undefined];
      for (const uri of ['/orders', 'orders.example/api', 'https://orders.example/api#v2', 'https://']) {
        assert.deepEqual(refusal(await exchange({ resource: ['https://billing.example/api', uri] })), refused(uri), uri);
      }
      const long = `/${'o'.repeat(300)}`;
      assert.deepEqual(refusal(await exchange({ resource: long })), refused(long.slice(0, 200)));
    });

    it('names each parameter that only access_token output may carry when jwt output is asked for', async () => {
      const jwt = { requested_token_type: JWT_TYPE };
      const onlyFor = (names: string) => [400, 'invalid_request', `${names}: only for access_token output, not for requested_token_type jwt`, undefined];
      assert.deepEqual(refusal(await exchange({ ...jwt, resource: 'https://orders.example/api' })), onlyFor('resource'));
      assert.deepEqual(refusal(await exchange({ ...jwt, scope: 'orders:read', resource: 'https://orders.example/api' })), onlyFor('scope, resource'));
      assert.deepEqual(
        refusal(await exchange({ ...jwt, scope: 'orders:read', audience: 'orders', resource: ['https://orders.example/api', 'https://orders.example/v2'] })),
        onlyFor('scope, audience, resource'),
      );
    });
  });
}
