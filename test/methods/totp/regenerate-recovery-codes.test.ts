import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Secret, TOTP } from 'otpauth';
import { credentialTypeContext } from '../../../src/credentials/context.ts';
import { regenerateRecoveryCodes } from '../../../src/methods/totp/regenerate-recovery-codes.ts';
import type { Store } from '../../../src/store/store.ts';
import { completeWithCode, importCredential, login, loginPerson, type PasswordPerson, passwordJwt, passwordPerson } from '../../helpers/authn.ts';
import { backends } from '../../helpers/backends.ts';
import { startFrozenService, type TestClock } from '../../helpers/frozen-service.ts';
import { clientToken, mintPersonToken, registerClient } from '../../helpers/oauth.ts';
import { TEST_SECRET, type TestOrg, type TestService } from '../../helpers/service.ts';

const FROZEN = Date.UTC(2031, 4, 6, 7, 8, 0);
const SECRET = 'JBSWY3DPEHPK3PXPJBSWY3DP';
const KEY_URI = `otpauth://totp/Example:lin%40example.com?secret=${SECRET}&issuer=Example`;
const OLD_CODES = ['ABCDE-FGHJK', 'MNPQR-STVWX', 'YZ234-56789'];
const totpParams = { key_uri: KEY_URI, recovery_codes_total: 10, unused_recovery_codes: OLD_CODES };

for (const backend of backends()) {
  describe(`POST /authn/totp/recovery-codes, on ${backend.name}`, () => {
    const clock: TestClock = { at: FROZEN };
    let t: TestService;
    let org: TestOrg;

    before(async () => {
      t = await startFrozenService(backend, clock, { loginFailureTimeMs: 100 });
      org = await t.org();
    });
    after(() => t.close());

    const asPerson = (jwt: string) => ({ 'service-orgid': org.orgId, authorization: `Bearer ${jwt}` });
    const totp = (email: string, code: string) => login(t, org, '/authn/totp', { handle: { type: 'email_address', value: email }, code });
    /** A sign-in with the password and then `code` of the person's TOTP: a JWT with mfa, as new recovery codes need. */
    const twoFactors = async (person: PasswordPerson, code: string) => {
      const first = await login(t, org, '/authn/password', { handle: { type: 'email_address', value: person.email }, password: person.password });
      const second = await completeWithCode(t, org, first.body.result.second_factor_ticket, code);
      assert.equal(second.status, 200, JSON.stringify(second.body));
      return second.body.result.token as string;
    };

    it('a person JWT replaces its TOTP recovery codes: ten new ones shown once, the old ones refused, the key kept', async () => {
      clock.at = FROZEN;
      const person = await passwordPerson(t, org);
      const credentialId = await importCredential(t, org, person.id, 'totp', totpParams);
      const jwt = await twoFactors(person, OLD_CODES[0]!);
      const answer = await t.call('POST', '/authn/totp/recovery-codes', { as: asPerson(jwt) });
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      const { credential_id, recovery_codes } = answer.body.result;
      assert.equal(credential_id, credentialId);
      assert.equal(recovery_codes.length, 10);
      for (const code of recovery_codes) assert.match(code, /^[2-9A-Z]{5}-[2-9A-Z]{5}$/);

      assert.equal((await totp(person.email, OLD_CODES[1]!)).status, 401, 'an old code no longer works');
      assert.equal((await totp(person.email, recovery_codes[0])).status, 200, 'a new one does');
      assert.equal((await totp(person.email, recovery_codes[0])).status, 401, 'once');
      clock.at += 30_000;
      assert.equal((await totp(person.email, TOTP.generate({ secret: Secret.fromBase32(SECRET), timestamp: clock.at }))).status, 200, 'the key is kept');

      const listed = (await t.call('GET', `/persons/${person.id}/credentials`, { as: org })).body.result;
      assert.deepEqual(listed.find((c: { type: string }) => c.type === 'totp').params, { recovery_codes_total: 10, recovery_codes_unused: 9 });
      const events = (await t.call('GET', '/audit/events?type=credential.recovery_codes_regenerated', { as: org })).body.result;
      assert.deepEqual(
        events.map((e: { data: unknown }) => e.data),
        [{ person_id: person.id, credential_id: credentialId, api_key_id: null }],
      );
      assert.ok(!JSON.stringify(events).includes(recovery_codes[1]), 'the audit never holds a code');
    });

    it('an admin key replaces the codes of the person named by person_id', async () => {
      clock.at = FROZEN;
      const person = await loginPerson(t, org);
      await importCredential(t, org, person.id, 'totp', totpParams);
      const missing = await t.call('POST', '/authn/totp/recovery-codes', { as: org, body: {} });
      assert.equal(missing.status, 400);
      assert.match(missing.body.errors[0].message, /^body\.person_id: is required/);
      const answer = await t.call('POST', '/authn/totp/recovery-codes', { as: org, body: { person_id: person.id } });
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      assert.equal(answer.body.result.recovery_codes.length, 10);
    });

    it('names the credential when there are several, and refuses one that is not a TOTP of the person', async () => {
      clock.at = FROZEN;
      const person = await passwordPerson(t, org);
      const other = await loginPerson(t, org);
      const none = await t.call('POST', '/authn/totp/recovery-codes', { as: asPerson(await passwordJwt(t, org, person)), body: {} });
      assert.equal(none.status, 404, 'no TOTP credential');
      const first = await importCredential(t, org, person.id, 'totp', totpParams);
      await importCredential(t, org, person.id, 'totp', totpParams);
      const jwt = await twoFactors(person, OLD_CODES[1]!);
      const several = await t.call('POST', '/authn/totp/recovery-codes', { as: asPerson(jwt), body: {} });
      assert.equal(several.status, 400);
      assert.match(several.body.errors[0].message, /^body\.credential_id: is required: the person has 2 TOTP credentials/);
      const theirs = await importCredential(t, org, other.id, 'totp', totpParams);
      const notMine = await t.call('POST', '/authn/totp/recovery-codes', { as: asPerson(jwt), body: { credential_id: theirs } });
      assert.equal(notMine.status, 404);
      assert.equal((await totp(other.email, OLD_CODES[0]!)).status, 200, "the other person's codes are untouched");
      const named = await t.call('POST', '/authn/totp/recovery-codes', { as: asPerson(jwt), body: { credential_id: first } });
      assert.equal(named.status, 200, JSON.stringify(named.body));
      assert.equal(named.body.result.credential_id, first);
    });

    it('loses a race to a login that spends a code, reads the credential again and replaces the codes then', async () => {
      clock.at = FROZEN;
      const person = await loginPerson(t, org);
      const credentialId = await importCredential(t, org, person.id, 'totp', totpParams);
      const real = t.service.store;
      let raced = false;
      // Between the read and the first compare-and-set, a login spends an old code: the version moves on.
      const store = new Proxy(real, {
        get(target, name) {
          if (name !== 'updateCredentialIf') return Reflect.get(target, name);
          return async (...args: Parameters<Store['updateCredentialIf']>) => {
            if (!raced) {
              raced = true;
              assert.equal((await totp(person.email, OLD_CODES[2]!)).status, 200);
            }
            return target.updateCredentialIf(...args);
          };
        },
      });
      const organization = (await real.getOrganization(org.orgId))!;
      const who = (await real.getPerson(org.orgId, person.id))!;
      const { recovery_codes } = await regenerateRecoveryCodes({ org: organization, person: who, apiKeyId: null, proof: null }, undefined, {
        store,
        context: credentialTypeContext(TEST_SECRET),
        now: () => clock.at,
      });
      assert.ok(raced);
      const stored = (await real.getCredential(org.orgId, person.id, credentialId))!;
      assert.equal(stored.version, 2, 'the login, then the replacement');
      assert.equal((stored.secret!.recovery_code_hashes as string[]).length, 10);
      assert.equal((await totp(person.email, OLD_CODES[0]!)).status, 401);
      assert.equal((await totp(person.email, recovery_codes[9]!)).status, 200);
    });

    it("refuses a client's token, no credentials, and person_id beside a person JWT", async () => {
      clock.at = FROZEN;
      const person = await loginPerson(t, org);
      await importCredential(t, org, person.id, 'totp', totpParams);
      const client = await registerClient(t, org);
      assert.equal((await t.call('POST', '/authn/totp/recovery-codes', { as: asPerson(await clientToken(t, client)), body: {} })).status, 401);
      assert.equal((await t.call('POST', '/authn/totp/recovery-codes', { as: { 'service-orgid': org.orgId }, body: {} })).status, 401);
      const jwt = await mintPersonToken(t, org, person.id);
      const named = await t.call('POST', '/authn/totp/recovery-codes', { as: asPerson(jwt), body: { person_id: person.id } });
      assert.equal(named.status, 400);
      assert.equal((await totp(person.email, OLD_CODES[0]!)).status, 200, 'nothing was replaced');
    });
  });
}
