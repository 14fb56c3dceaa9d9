import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { URI } from 'otpauth';
import { attemptEvents, importCredential, keyUriOf, login, loginPerson, oathtoolVectors } from '../../helpers/authn.ts';
import { backends } from '../../helpers/backends.ts';
import { startFrozenService, type TestClock } from '../../helpers/frozen-service.ts';
import type { TestOrg, TestService } from '../../helpers/service.ts';

const [VECTOR] = oathtoolVectors();
const PERIOD_MS = VECTOR!.period * 1000;
/** The time step of VECTOR's moment, whose code is VECTOR.code. */
const STEP = Math.floor(VECTOR!.unix_seconds / VECTOR!.period);

/**
 * The last used time step is kept in the credential's `secret` as `last_used_step`, a number: rows
 * written by any release are read with that name, so it is part of the stored format.
 */
for (const backend of backends()) {
  describe(`The last used TOTP step as stored, on ${backend.name}`, () => {
    const clock: TestClock = { at: VECTOR!.unix_seconds * 1000 };
    let t: TestService;
    let org: TestOrg;

    before(async () => {
      t = await startFrozenService(backend, clock, { loginFailureTimeMs: 100 });
      org = await t.org();
    });
    after(() => t.close());

    const enrolled = async () => {
      const person = await loginPerson(t, org);
      const credentialId = await importCredential(t, org, person.id, 'totp', {
        key_uri: keyUriOf(VECTOR!),
        recovery_codes_total: 0,
        unused_recovery_codes: [],
      });
      const stored = async () => {
        const credential = await t.service.store.getCredential(org.orgId, person.id, credentialId);
        assert.ok(credential);
        return credential;
      };
      const totp = (code: string) => login(t, org, '/authn/totp', { handle: { type: 'email_address', value: person.email }, code });
      return { person, credentialId, stored, totp };
    };

    it('a login stores the step it spent as secret.last_used_step', async () => {
      clock.at = VECTOR!.unix_seconds * 1000;
      const holder = await enrolled();
      assert.equal((await holder.stored()).secret?.last_used_step, undefined, 'an imported credential has used no step');
      assert.equal((await holder.totp(VECTOR!.code)).status, 200);
      assert.equal((await holder.stored()).secret?.last_used_step, STEP);
    });

    it('a credential whose row holds a last_used_step (as an earlier release wrote it) refuses that step and accepts the next', async () => {
      clock.at = VECTOR!.unix_seconds * 1000;
      const holder = await enrolled();
      const credential = await holder.stored();
      const written = { params: credential.params, secret: { ...credential.secret, last_used_step: STEP } };
      assert.ok(await t.service.store.updateCredentialIf(org.orgId, holder.credentialId, credential.version, written));
      const replay = await holder.totp(VECTOR!.code);
      assert.equal(replay.status, 401, JSON.stringify(replay.body));
      const reasons = (await attemptEvents(t, org)).filter((event) => event.person_id === holder.person.id).map((event) => event.reason);
      assert.deepEqual(reasons, ['replayed']);
      clock.at += PERIOD_MS;
      const next = URI.parse(keyUriOf(VECTOR!)).generate({ timestamp: clock.at });
      assert.equal((await holder.totp(next)).status, 200, 'the step after it is accepted');
      assert.equal((await holder.stored()).secret?.last_used_step, STEP + 1);
    });
  });
}
