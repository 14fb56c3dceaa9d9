import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Proof } from '../../src/authn/assurance.ts';
import { RECENT_SIGN_IN_MS } from '../../src/authn/assurance.ts';
import { removeOwnFactor } from '../../src/credentials/factor-removal.ts';
import { ApiError } from '../../src/errors/api-error.ts';
import { twoFactorPerson } from '../helpers/authn.ts';
import { backends } from '../helpers/backends.ts';
import { startTestService, type TestOrg, type TestService } from '../helpers/service.ts';

/** removeOwnFactor, the one rule of a person removing their own factor, whatever door (the console's today) calls it. */
for (const backend of backends()) {
  describe(`Removing one's own factor, on ${backend.name}`, () => {
    let t: TestService;
    let org: TestOrg;
    before(async () => {
      t = await startTestService(backend);
      org = await t.org();
    });
    after(() => t.close());

    const setUp = async (roles: string[] = []) => {
      const person = await twoFactorPerson(t, org, { roles, console: true });
      const organization = (await t.service.store.getOrganization(org.orgId))!;
      const stored = (await t.service.store.getPerson(org.orgId, person.id))!;
      const totp = (await t.service.store.listCredentialsOfType(org.orgId, person.id, 'totp'))[0]!;
      const remove = (proof: Proof, now = Date.now()) =>
        removeOwnFactor(
          t.service.store,
          { org: organization, person: stored, apiKeyId: null, proof },
          { credentialId: totp.id, type: 'totp', name: 'authenticator app' },
          { via: 'test' },
          () => now,
        );
      const held = async () => (await t.service.store.listCredentialsOfType(org.orgId, person.id, 'totp')).length;
      return { remove, held };
    };
    const refusedWith = (code: string, message: RegExp) => (error: unknown) => error instanceof ApiError && error.code === code && message.test(error.message);

    it('regression: a password-only session removed the TOTP its person had enrolled elsewhere (review of issue 23)', async () => {
      const { remove, held } = await setUp();
      await assert.rejects(remove({ amr: ['pwd'], authTime: Date.now() }), refusedWith('INSUFFICIENT_USER_AUTHENTICATION', /two factors/));
      await assert.rejects(remove({ amr: undefined, authTime: undefined }), refusedWith('INSUFFICIENT_USER_AUTHENTICATION', /mint-token/));
      assert.equal(await held(), 1);
    });

    it('needs the two-factor sign-in to be at most ten minutes old', async () => {
      const { remove, held } = await setUp();
      const signedIn = Date.now() - RECENT_SIGN_IN_MS - 1_000;
      await assert.rejects(remove({ amr: ['pwd', 'otp', 'mfa'], authTime: signedIn }), refusedWith('INSUFFICIENT_USER_AUTHENTICATION', /last 10 minutes/));
      assert.equal(await held(), 1);
      await remove({ amr: ['pwd', 'otp', 'mfa'], authTime: Date.now() });
      assert.equal(await held(), 0);
    });

    it("regression: two removals at once each left the other as the administrator's last factor, and both went (review of issue 23)", async () => {
      const person = await twoFactorPerson(t, org, { roles: ['verifier'], console: true });
      await (await import('../helpers/authn.ts')).addTotp(t, org, person.id);
      const organization = (await t.service.store.getOrganization(org.orgId))!;
      const stored = (await t.service.store.getPerson(org.orgId, person.id))!;
      const both = await t.service.store.listCredentialsOfType(org.orgId, person.id, 'totp');
      assert.equal(both.length, 2);
      const proof = { amr: ['pwd', 'otp', 'mfa'], authTime: Date.now() };
      const outcomes = await Promise.allSettled(
        both.map((credential) =>
          removeOwnFactor(
            t.service.store,
            { org: organization, person: stored, apiKeyId: null, proof },
            { credentialId: credential.id, type: 'totp', name: 'authenticator app' },
            { via: 'test' },
            Date.now,
          ),
        ),
      );
      assert.deepEqual(outcomes.map((o) => o.status).sort(), ['fulfilled', 'rejected']);
      assert.equal((await t.service.store.listCredentialsOfType(org.orgId, person.id, 'totp')).length, 1);
    });

    it("keeps an administrator's last second factor", async () => {
      const { remove, held } = await setUp(['admin']);
      await assert.rejects(remove({ amr: ['pwd', 'otp', 'mfa'], authTime: Date.now() }), refusedWith('CONFLICT', /your last passkey or authenticator app/));
      assert.equal(await held(), 1);
    });
  });
}
