import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AttemptLimiter } from '../../src/authn/attempt-limiter.ts';
import { LoginFlow } from '../../src/authn/login-flow.ts';
import { credentialTypeContext } from '../../src/credentials/context.ts';
import { ApiError } from '../../src/errors/api-error.ts';
import { HashWorkPool } from '../../src/methods/password/index.ts';
import { passwordMethod } from '../../src/methods/password/login.ts';
import { importCredential, loginPerson, policyHash, slowHashJob } from '../helpers/authn.ts';
import { backends } from '../helpers/backends.ts';
import { startTestService, TEST_SECRET, type TestOrg, type TestService } from '../helpers/service.ts';

for (const backend of backends()) {
  describe(`The login flow when password checks are busy, on ${backend.name}`, () => {
    let t: TestService;
    let org: TestOrg;

    before(async () => {
      t = await startTestService(backend);
      org = await t.org();
    });
    after(() => t.close());

    it('answers 503 PASSWORD_CHECKS_BUSY with Retry-After and takes the attempt back', async () => {
      const store = t.service.store;
      const person = await loginPerson(t, org);
      await importCredential(t, org, person.id, 'password', { password_hash: await policyHash('secret words') });
      const flow = new LoginFlow({
        store,
        limiter: new AttemptLimiter(store, Date.now),
        hashCode: credentialTypeContext(TEST_SECRET).hashCode,
        now: Date.now,
      });
      // One slot, no queue, and the slot held by a hash of a second or so: the next verification is refused at once.
      const pool = new HashWorkPool({ concurrency: 1, maxQueued: 0, retryAfterSeconds: 2 });
      const held = pool.run(slowHashJob());
      const organization = await store.getOrganization(org.orgId);
      assert.ok(organization);
      const method = passwordMethod('secret words', { store, pool, now: Date.now });
      await assert.rejects(flow.authenticate(organization, { type: 'email_address', value: person.email }, method), (error: unknown) => {
        assert.ok(error instanceof ApiError);
        assert.deepEqual([error.code, error.status, error.headers['Retry-After']], ['PASSWORD_CHECKS_BUSY', 503, '2']);
        return true;
      });
      assert.deepEqual(
        (await store.listAuthnAttemptsOfPerson(org.orgId, person.id, [])).map((record) => record.failures),
        [0],
        'the attempt was counted before the check and taken back',
      );
      await held;
      const login = await flow.authenticate(organization, { type: 'email_address', value: person.email }, method);
      assert.equal(login.person.id, person.id);
    });
  });
}
