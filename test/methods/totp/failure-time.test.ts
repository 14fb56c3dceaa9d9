import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { importCredential, keyUriOf, login, loginPerson, oathtoolVectors } from '../../helpers/authn.ts';
import { backends } from '../../helpers/backends.ts';
import { startFrozenService, type TestClock } from '../../helpers/frozen-service.ts';
import type { TestOrg, TestService } from '../../helpers/service.ts';

const [VECTOR] = oathtoolVectors();
const FAILURE_TIME_MS = 400;

for (const backend of backends()) {
  describe(`A TOTP failure takes the failure time (design §5), on ${backend.name}`, () => {
    const clock: TestClock = { at: VECTOR!.unix_seconds * 1000 };
    let t: TestService;
    let org: TestOrg;

    before(async () => {
      t = await startFrozenService(backend, clock, { loginFailureTimeMs: FAILURE_TIME_MS });
      org = await t.org();
    });
    after(() => t.close());

    it('a wrong code of a person holding TOTP is answered no sooner than TESSERA_LOGIN_FAILURE_TIME', async () => {
      const person = await loginPerson(t, org);
      await importCredential(t, org, person.id, 'totp', { key_uri: keyUriOf(VECTOR!), recovery_codes_total: 0, unused_recovery_codes: [] });
      const timed = async (code: string) => {
        const started = performance.now();
        const answer = await login(t, org, '/authn/totp', { handle: { type: 'email_address', value: person.email }, code });
        return { status: answer.status, ms: performance.now() - started };
      };
      const wrong = await timed(VECTOR!.code === '000000' ? '000001' : '000000');
      assert.equal(wrong.status, 401);
      assert.ok(wrong.ms >= FAILURE_TIME_MS, `answered after ${wrong.ms} ms`);
      const right = await timed(VECTOR!.code);
      assert.equal(right.status, 200);
    });
  });
}
