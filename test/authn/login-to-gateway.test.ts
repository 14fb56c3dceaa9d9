import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { RunningGateway } from '../../src/gateway/lifecycle.ts';
import { importCredential, login, loginPerson, policyHash } from '../helpers/authn.ts';
import { backends } from '../helpers/backends.ts';
import { claims, EXCHANGE, JWT_TYPE, registerClient, token } from '../helpers/oauth.ts';
import { startOAuthClientGateway } from '../helpers/oauth-client-gateway.ts';
import { type RecordingUpstream, startRecordingUpstream } from '../helpers/recording-upstream.ts';
import { startTestService, type TestService } from '../helpers/service.ts';

for (const backend of backends()) {
  describe(`A password login, down to a delegated call through the gateway, on ${backend.name}`, () => {
    let t: TestService;
    let upstream: RecordingUpstream;
    let gateway: RunningGateway;

    before(async () => {
      upstream = await startRecordingUpstream();
      t = await startTestService(backend, { TESSERA_DEV: '1' });
    });
    after(async () => {
      await gateway?.close();
      await Promise.all([t.close(), upstream.close()]);
    });

    it('exchanges the login JWT at /oauth2/tokens, and the upstream behind the gateway sees a token whose sub is the person', async () => {
      const org = await t.org();
      const client = await registerClient(t, org);
      const person = await loginPerson(t, org);
      await importCredential(t, org, person.id, 'password', { password_hash: await policyHash('open sesame') });
      const loggedIn = await login(t, org, '/authn/password', { handle: { type: 'email_address', value: person.email }, password: 'open sesame' });
      assert.equal(loggedIn.status, 200, JSON.stringify(loggedIn.body));
      const personJwt: string = loggedIn.body.result.token;

      const exchanged = await token(
        t,
        { grant_type: EXCHANGE, subject_token: personJwt, subject_token_type: JWT_TYPE, requested_token_type: JWT_TYPE },
        client,
      );
      assert.equal(exchanged.status, 200, JSON.stringify(exchanged.body));
      assert.deepEqual([claims(exchanged.body.access_token).sub, claims(exchanged.body.access_token).act], [person.id, { sub: client.id }]);

      gateway = await startOAuthClientGateway(t.url, upstream.url, client);
      const response = await fetch(`${gateway.url}/orders/1`, { headers: { authorization: `Bearer ${personJwt}` } });
      assert.equal(response.status, 200);
      const seen = String(upstream.requests[0]!.headers.authorization).replace(/^Bearer /, '');
      assert.notEqual(seen, personJwt, 'the upstream gets the delegated token, not the login token');
      assert.deepEqual([claims(seen).sub, claims(seen).oid, claims(seen).act], [person.id, org.orgId, { sub: client.id }]);
    });
  });
}
