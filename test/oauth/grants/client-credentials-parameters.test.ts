import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { OAuthParams } from '../../../src/oauth/form.ts';
import { clientCredentials } from '../../../src/oauth/grants/client-credentials.ts';
import type { OAuthDeps } from '../../../src/oauth/grants/grant.ts';
import { backends } from '../../helpers/backends.ts';
import { type ClientCredentials, createPerson, JWT_TYPE, mintPersonToken, type OAuthResponse, registerClient, token } from '../../helpers/oauth.ts';
import { startTestService, type TestOrg, type TestService } from '../../helpers/service.ts';

/** RFC 6749 §4.4 requests that are refused for their parameters (src/oauth/grants/client-credentials.ts). */
for (const backend of backends()) {
  describe(`client_credentials parameters on ${backend.name}`, () => {
    let t: TestService;
    let org: TestOrg;
    let client: ClientCredentials;

    before(async () => {
      t = await startTestService(backend);
      org = await t.org();
      client = await registerClient(t, org);
    });
    after(() => t.close());

    const request = (params: Record<string, string>) => token(t, { grant_type: 'client_credentials', ...params }, client);
    const refusal = (response: OAuthResponse) => [response.status, response.body.error, response.body.error_description, response.body.access_token];

    it('refuses a scope that is not scope tokens (RFC 6749 §3.3) as a malformed request, not as a scope the client lacks', async () => {
      for (const scope of ['orders:read "orders:write"', 'orders\\read', 'orders:read\torders:write', 'ordérs:read']) {
        assert.deepEqual(refusal(await request({ scope })), [400, 'invalid_request', 'scope is not a space-delimited list of scope tokens', undefined], scope);
      }
      // Well-formed, and the client holds it: the same request without the bad token is granted.
      assert.equal((await request({ scope: 'orders:read' })).status, 200);
    });

    it('names every scope the client may not request, and grants the scopes asked for once each, in the order asked', async () => {
      assert.deepEqual(refusal(await request({ scope: 'orders:read admin:all orders:write billing:x' })), [
        400,
        'invalid_scope',
        'the client may not request: admin:all billing:x',
        undefined,
      ]);
      const granted = await request({ scope: 'orders:write  orders:read orders:write' });
      assert.deepEqual([granted.status, granted.body.scope], [200, 'orders:write orders:read']);
    });

    it('refuses the token exchange parameters, each by name', async () => {
      const subject = await mintPersonToken(t, org, await createPerson(t, org));
      for (const [name, value] of [
        ['subject_token', subject],
        ['actor_token', subject],
        ['requested_token_type', JWT_TYPE],
      ] as const) {
        const expected = [400, 'invalid_request', `parameter ${name} does not belong to grant_type client_credentials`, undefined];
        assert.deepEqual(refusal(await request({ [name]: value })), expected);
        assert.deepEqual(refusal(await request({ [name]: value, scope: 'orders:read' })), expected, 'with a scope the client holds as well');
      }
    });
  });
}

describe('the client_credentials grant handler', () => {
  it('throws a TypeError naming the wiring mistake when it is reached without an authenticated client', async () => {
    // The token endpoint refuses client_credentials without a client first (test/oauth/negative-corpus.test.ts):
    // this guard is what a change of that wiring would run into.
    const context = { params: new OAuthParams('grant_type=client_credentials'), client: undefined, clientConfig: undefined, deps: {} as OAuthDeps, audit: {} };
    await assert.rejects(clientCredentials.handle(context), new TypeError('client_credentials reached without an authenticated client'));
  });
});
