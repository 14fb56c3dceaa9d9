import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Store } from '../../../src/store/store.ts';
import { attemptEvents, importCredential, keyUriOf, login, loginPerson, oathtoolVectors } from '../../helpers/authn.ts';
import { backends } from '../../helpers/backends.ts';
import { startFrozenService, type TestClock } from '../../helpers/frozen-service.ts';
import { interferingStore } from '../../helpers/interfering-store.ts';
import type { TestOrg, TestService } from '../../helpers/service.ts';

const [VECTOR] = oathtoolVectors();
const GENERIC_401 = { errors: [{ httpcode: 401, message: 'authentication: the handle and the secret do not match', code: 'UNAUTHENTICATED' }] };
const RECOVERY_CODES = ['ABCDE-FGHJK', 'MNPQR-STVWX', 'YZ234-56789', 'BCDEF-GHJKM', 'NPQRS-TVWXY', 'Z2345-6789A'];

for (const backend of backends()) {
  describe(`A TOTP login whose credential another request changes meanwhile, on ${backend.name}`, () => {
    const clock: TestClock = { at: VECTOR!.unix_seconds * 1000 };
    let t: TestService;
    let org: TestOrg;
    const interfering = interferingStore();

    before(async () => {
      t = await startFrozenService(backend, clock, { wrapStore: interfering.wrapStore, loginFailureTimeMs: 100 });
      org = await t.org();
    });
    after(() => t.close());

    const enrolled = async () => {
      const person = await loginPerson(t, org);
      const credentialId = await importCredential(t, org, person.id, 'totp', {
        key_uri: keyUriOf(VECTOR!),
        recovery_codes_total: RECOVERY_CODES.length,
        unused_recovery_codes: RECOVERY_CODES,
      });
      const totp = (code: string) => login(t, org, '/authn/totp', { handle: { type: 'email_address', value: person.email }, code });
      const current = async () => {
        const credential = await t.service.store.getCredential(org.orgId, person.id, credentialId);
        assert.ok(credential);
        return credential;
      };
      /** Another request spends one of the person's recovery codes: a change that leaves the time step unspent. */
      const spendsARecoveryCode = async (store: Store, id: string) => {
        const credential = await current();
        const hashes = credential.secret?.recovery_code_hashes as string[];
        const next = { params: credential.params, secret: { ...credential.secret, recovery_code_hashes: hashes.slice(1) } };
        assert.ok(await store.updateCredentialIf(org.orgId, id, credential.version, next));
      };
      const attempts = async () =>
        (await attemptEvents(t, org)).filter((event) => event.person_id === person.id).map((event) => [event.method, event.outcome, event.reason]);
      return { person, credentialId, totp, current, spendsARecoveryCode, attempts };
    };

    const { interfere } = interfering;

    it('a step whose compare-and-set lost to an unrelated change is judged again and spent: four lost rounds, the fifth wins', async () => {
      const person = await enrolled();
      interfere(person.credentialId, 4, person.spendsARecoveryCode);
      const answer = await person.totp(VECTOR!.code);
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      assert.equal(interfering.rounds(), 5);
      const view = (await t.call('GET', `/persons/${person.person.id}/credentials`, { as: org })).body.result[0];
      assert.equal(view.params.recovery_codes_unused, RECOVERY_CODES.length - 4, "the other requests' spends are kept");
      assert.deepEqual(await person.attempts(), [['totp', 'success', null]]);
    });

    it('a storm of changes is given up after five rounds: the one 401, audited as contended, and the step still unspent', async () => {
      const person = await enrolled();
      interfere(person.credentialId, 5, person.spendsARecoveryCode);
      const answer = await person.totp(VECTOR!.code);
      assert.deepEqual([answer.status, answer.body], [401, GENERIC_401]);
      assert.equal(interfering.rounds(), 5, 'no sixth round');
      assert.deepEqual(await person.attempts(), [['totp', 'failure', 'contended']]);
      interfering.stop();
      assert.equal((await person.totp(VECTOR!.code)).status, 200, 'the step was never spent: the next try logs in');
    });

    it('a step another request spent meanwhile is refused as replayed', async () => {
      const person = await enrolled();
      interfere(person.credentialId, 1, async (store, id) => {
        const credential = await person.current();
        const spent = { params: credential.params, secret: { ...credential.secret, last_used_step: Math.floor(VECTOR!.unix_seconds / VECTOR!.period) } };
        assert.ok(await store.updateCredentialIf(org.orgId, id, credential.version, spent));
      });
      const answer = await person.totp(VECTOR!.code);
      assert.deepEqual([answer.status, answer.body], [401, GENERIC_401]);
      assert.deepEqual(await person.attempts(), [['totp', 'failure', 'replayed']]);
    });

    it('a credential deleted meanwhile is the one 401, audited as contended (not a 500)', async () => {
      const person = await enrolled();
      interfere(person.credentialId, 1, async (store, id) => {
        assert.ok(await store.deleteCredential(org.orgId, person.person.id, id, clock.at));
      });
      const answer = await person.totp(VECTOR!.code);
      assert.deepEqual([answer.status, answer.body], [401, GENERIC_401]);
      assert.equal(interfering.rounds(), 1);
      assert.deepEqual(await person.attempts(), [['totp', 'failure', 'contended']]);
    });
  });
}
