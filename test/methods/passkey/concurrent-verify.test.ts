import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SoftwareAuthenticator } from '../../../src/dev/software-authenticator.ts';
import { importCredential, loginPerson } from '../../helpers/authn.ts';
import { backends } from '../../helpers/backends.ts';
import { startTestService, type TestService } from '../../helpers/service.ts';
import { asBrowser, configurePasskeys, importParams, loginOptions, ORIGIN, RP_ID, storedAuthenticator } from './passkeys.ts';

for (const backend of backends()) {
  describe(`One WebAuthn challenge used concurrently on ${backend.name}`, () => {
    let t: TestService;
    before(async () => {
      t = await startTestService(backend);
    });
    after(() => t.close());

    it('lets exactly one of fifty concurrent verify calls log in', async () => {
      const org = await t.org();
      await configurePasskeys(t, org);
      const person = await loginPerson(t, org);
      const authenticator = new SoftwareAuthenticator();
      await importCredential(t, org, person.id, 'public-key', importParams(authenticator));
      const { challenge_id, options } = await loginOptions(t, org, person.email);
      // Fifty valid assertions of the one challenge, each with its own counter, sent at once.
      const assertions = Array.from({ length: 50 }, () => authenticator.assert({ challenge: options.challenge, rpId: RP_ID, origin: ORIGIN }));
      const responses = await Promise.all(assertions.map((response) => asBrowser(t, org, '/authn/webauthn/verify', { challenge_id, response })));
      const statuses = responses.map((r) => r.status);
      assert.equal(statuses.filter((s) => s === 200).length, 1, JSON.stringify(statuses));
      assert.equal(statuses.filter((s) => s === 401).length, 49);
      assert.equal((await storedAuthenticator(t, org, person.id)).clone_warning, false, 'the losers never reached the counter');
    });
  });
}
