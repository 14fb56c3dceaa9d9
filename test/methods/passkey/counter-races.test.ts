import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SoftwareAuthenticator } from '../../../src/dev/software-authenticator.ts';
import { attemptEvents, importCredential, loginPerson } from '../../helpers/authn.ts';
import { backends } from '../../helpers/backends.ts';
import { startFrozenService, type TestClock } from '../../helpers/frozen-service.ts';
import { type CredentialWrite, interferingStore } from '../../helpers/interfering-store.ts';
import type { TestOrg, TestService } from '../../helpers/service.ts';
import { configurePasskeys, importParams, passkeyLogin, storedAuthenticator } from './passkeys.ts';

const GENERIC_401 = { errors: [{ httpcode: 401, message: 'authentication: the handle and the secret do not match', code: 'UNAUTHENTICATED' }] };

/** Another request's write to the passkey: its version moves, its counter does not. */
const versionOnly: CredentialWrite = async (store, credentialId, orgId) => {
  const [current] = (await store.listOrganizationCredentialsOfType(orgId, 'public-key')).filter((credential) => credential.id === credentialId);
  assert.ok(current);
  assert.ok(await store.updateCredentialIf(orgId, credentialId, current.version, { params: current.params, secret: current.secret }));
};

for (const backend of backends()) {
  describe(`A passkey login whose credential another request writes meanwhile, on ${backend.name}`, () => {
    const clock: TestClock = { at: Date.parse('2026-03-01T12:00:00Z') };
    let t: TestService;
    let org: TestOrg;
    const interfering = interferingStore();

    before(async () => {
      t = await startFrozenService(backend, clock, { wrapStore: interfering.wrapStore });
      org = await t.org();
      await configurePasskeys(t, org);
    });
    after(() => t.close());

    const withPasskey = async (authenticator: SoftwareAuthenticator) => {
      const person = await loginPerson(t, org);
      const credentialId = await importCredential(t, org, person.id, 'public-key', importParams(authenticator));
      const attempts = async () =>
        (await attemptEvents(t, org)).filter((event) => event.person_id === person.id).map((event) => [event.outcome, event.reason, event.credential_id]);
      return { person, credentialId, attempts };
    };

    const interfere = (credentialId: string, times: number) => interfering.interfere(credentialId, times, versionOnly);

    it('a counter write that lost to another write is verified again and stored: four lost rounds, the fifth wins', async () => {
      const authenticator = new SoftwareAuthenticator({ signCount: 7 });
      const holder = await withPasskey(authenticator);
      interfere(holder.credentialId, 4);
      const answer = await passkeyLogin(t, org, holder.person.email, authenticator);
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      assert.equal(interfering.rounds(), 5);
      assert.deepEqual(await storedAuthenticator(t, org, holder.person.id), {
        aaguid: importParams(authenticator).authenticator.aaguid,
        sign_count: 8,
        clone_warning: false,
      });
      assert.deepEqual(await holder.attempts(), [['success', null, holder.credentialId]]);
    });

    it('a storm of writes is given up after five rounds: the one 401, audited as counter_contended, the counter not moved', async () => {
      const authenticator = new SoftwareAuthenticator({ signCount: 7 });
      const holder = await withPasskey(authenticator);
      interfere(holder.credentialId, 5);
      const answer = await passkeyLogin(t, org, holder.person.email, authenticator);
      assert.deepEqual([answer.status, answer.body], [401, GENERIC_401]);
      assert.equal(interfering.rounds(), 5, 'no sixth round');
      assert.equal((await storedAuthenticator(t, org, holder.person.id)).sign_count, 7);
      assert.deepEqual(await holder.attempts(), [['failure', 'counter_contended', null]]);
    });

    it('a passkey without a counter (always 0) and no clone warning writes nothing at a login, so concurrent writes never contend with it', async () => {
      const authenticator = new SoftwareAuthenticator({ counts: false });
      const holder = await withPasskey(authenticator);
      interfere(holder.credentialId, 5);
      const answer = await passkeyLogin(t, org, holder.person.email, authenticator);
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      assert.equal(interfering.rounds(), 0, 'no compare-and-set was tried');
      assert.deepEqual(await storedAuthenticator(t, org, holder.person.id), {
        aaguid: importParams(authenticator).authenticator.aaguid,
        sign_count: 0,
        clone_warning: false,
      });
      assert.deepEqual(await holder.attempts(), [['success', null, holder.credentialId]]);
    });
  });
}
