import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { AttemptGate } from '../../src/authn/login-flow.ts';
import { LoginFlow } from '../../src/authn/login-flow.ts';
import { credentialTypeContext } from '../../src/credentials/context.ts';
import { ApiError } from '../../src/errors/api-error.ts';
import { totpMethod } from '../../src/methods/totp/login.ts';
import { importCredential, keyUriOf, login, loginPerson, oathtoolVectors } from '../helpers/authn.ts';
import { backends } from '../helpers/backends.ts';
import { startFrozenService, type TestClock } from '../helpers/frozen-service.ts';
import { TEST_SECRET, type TestOrg, type TestService } from '../helpers/service.ts';

const USES = 50;
const [VECTOR] = oathtoolVectors();
const RECOVERY_CODE = 'ABCDE-FGHJK';

/** Lets every attempt through, so that only spending the code can stop the other 49. */
const noLimit: AttemptGate = { begin: async () => ({ succeeded: async () => {}, failed: async () => {}, abandoned: async () => {} }) };

for (const backend of backends()) {
  describe(`Fifty concurrent uses of one code, on ${backend.name}`, () => {
    const clock: TestClock = { at: VECTOR!.unix_seconds * 1000 };
    let t: TestService;
    let org: TestOrg;
    let flow: LoginFlow;

    before(async () => {
      t = await startFrozenService(backend, clock);
      org = await t.org();
      const store = t.service.store;
      const now = () => clock.at;
      flow = new LoginFlow({ store, limiter: noLimit, hashCode: credentialTypeContext(TEST_SECRET).hashCode, now });
    });
    after(() => t.close());

    const enrolled = async () => {
      const person = await loginPerson(t, org);
      await importCredential(t, org, person.id, 'totp', { key_uri: keyUriOf(VECTOR!), recovery_codes_total: 1, unused_recovery_codes: [RECOVERY_CODE] });
      return person;
    };

    /** Successes and failures of USES concurrent logins through the flow, without the limiter. */
    const unlimited = async (code: string) => {
      const person = await enrolled();
      const organization = await t.service.store.getOrganization(org.orgId);
      assert.ok(organization);
      const method = () => totpMethod(code, { store: t.service.store, context: credentialTypeContext(TEST_SECRET), now: () => clock.at });
      const settled = await Promise.allSettled(
        Array.from({ length: USES }, () => flow.authenticate(organization, { type: 'email_address', value: person.email }, method())),
      );
      const failures = settled.filter((result) => result.status === 'rejected');
      for (const failure of failures) assert.ok(failure.reason instanceof ApiError && failure.reason.code === 'UNAUTHENTICATED', String(failure.reason));
      return { successes: settled.length - failures.length, failures: failures.length };
    };

    /** Status codes of USES concurrent HTTP logins, limiter included. */
    const overHttp = async (code: string) => {
      const person = await enrolled();
      const answers = await Promise.all(
        Array.from({ length: USES }, () => login(t, org, '/authn/totp', { handle: { type: 'email_address', value: person.email }, code })),
      );
      const statuses = answers.map((answer) => answer.status);
      assert.ok(
        statuses.every((status) => [200, 401, 429].includes(status)),
        statuses.join(),
      );
      return statuses.filter((status) => status === 200).length;
    };

    it('one TOTP code: exactly one success, the time step spent by compare-and-set', async () => {
      assert.deepEqual(await unlimited(VECTOR!.code), { successes: 1, failures: USES - 1 });
      assert.equal(await overHttp(VECTOR!.code), 1, 'over HTTP with the attempt limiter too');
    });

    it('one recovery code: exactly one success, the code removed by compare-and-set', async () => {
      assert.deepEqual(await unlimited(RECOVERY_CODE), { successes: 1, failures: USES - 1 });
      assert.equal(await overHttp(RECOVERY_CODE), 1, 'over HTTP with the attempt limiter too');
    });
  });
}
