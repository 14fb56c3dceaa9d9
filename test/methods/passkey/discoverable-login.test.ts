import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MAX_CONSECUTIVE_FAILURES, MAX_DELAY_MS } from '../../../src/authn/attempt-policy.ts';
import { handleCounterSubjects, userHandleCounter } from '../../../src/authn/attempt-subject.ts';
import { credentialTypeContext } from '../../../src/credentials/context.ts';
import { SoftwareAuthenticator } from '../../../src/dev/software-authenticator.ts';
import { attemptEvents, importCredential, loginPerson, unauditedAttempts } from '../../helpers/authn.ts';
import { backends } from '../../helpers/backends.ts';
import { startFrozenService, type TestClock } from '../../helpers/frozen-service.ts';
import { claims } from '../../helpers/oauth.ts';
import { errorCodes, TEST_SECRET, type TestOrg, type TestService } from '../../helpers/service.ts';
import { asBrowser, configurePasskeys, discoverableLogin, importParams, loginOptions, passkeyLogin, RP_ID, registerPasskey, userHandleOf } from './passkeys.ts';

const GENERIC_401 = 'authentication: the handle and the secret do not match';
const { hashCode } = credentialTypeContext(TEST_SECRET);

for (const backend of backends()) {
  describe(`Discoverable (usernameless) passkey login on ${backend.name}`, () => {
    const clock: TestClock = { at: Date.parse('2026-03-01T12:00:00Z') };
    let t: TestService;

    before(async () => {
      t = await startFrozenService(backend, clock);
    });
    after(() => t.close());

    /** An organisation of its own (so its audit events are the test's alone), with passkeys configured. */
    async function passkeyOrg(): Promise<TestOrg> {
      const org = await t.org();
      await configurePasskeys(t, org);
      return org;
    }

    /** A person with a passkey registered here: its user handle is the person id. */
    async function personWithPasskey(org: TestOrg) {
      const person = await loginPerson(t, org);
      const authenticator = new SoftwareAuthenticator();
      await registerPasskey(t, org, person.id, authenticator);
      return { person, authenticator };
    }

    function expectGeneric401(response: { status: number; body: any }) {
      assert.equal(response.status, 401, JSON.stringify(response.body));
      assert.deepEqual(errorCodes(response.body), ['UNAUTHENTICATED']);
      assert.equal(response.body.errors[0].message, GENERIC_401);
    }

    const failuresOn = async (org: TestOrg, namedId: string) =>
      (await t.service.store.getAuthnAttempts(org.orgId, userHandleCounter({ orgId: org.orgId, namedId, personId: null }, hashCode).subject))?.failures;

    it('answers options for {} and for no body of the same shape as for a handle, listing no credential', async () => {
      const org = await passkeyOrg();
      const { person } = await personWithPasskey(org);
      const byHandle = await loginOptions(t, org, person.email);
      for (const body of [{}, undefined]) {
        const response = await asBrowser(t, org, '/authn/webauthn/options', body);
        assert.equal(response.status, 200, JSON.stringify(response.body));
        const { challenge_id, options } = response.body.result;
        assert.match(challenge_id, /^wch_/);
        assert.deepEqual(Object.keys(options).sort(), Object.keys(byHandle.options).sort());
        assert.deepEqual([options.rpId, options.allowCredentials, options.userVerification], [RP_ID, [], 'required']);
      }
    });

    it("logs in with no handle: the person is the one the passkey's user handle names, a JWT with the same amr", async () => {
      const org = await passkeyOrg();
      const { person, authenticator } = await personWithPasskey(org);
      const response = await discoverableLogin(t, org, authenticator);
      assert.equal(response.status, 200, JSON.stringify(response.body));
      assert.equal(response.body.result.person_id, person.id);
      const jwt = claims(response.body.result.token);
      assert.deepEqual([jwt.sub, jwt.oid, jwt.amr], [person.id, org.orgId, ['hwk', 'user', 'mfa']]);
      const events = await attemptEvents(t, org);
      assert.deepEqual(
        events.map((e) => [e.method, e.person_id, e.outcome, e.reason]),
        [['webauthn', person.id, 'success', null]],
      );
    });

    it('refuses a user handle that names nobody, none, or one not of ours, with the one 401, counted by a word of ours and never logged', async () => {
      const org = await passkeyOrg();
      const { authenticator } = await personWithPasskey(org);
      const counted = async () =>
        Promise.all(
          ['unknown_user_handle', 'no_user_handle', 'undecodable_user_handle'].map((reason) =>
            unauditedAttempts(t, { method: 'webauthn', outcome: 'failure', reason }),
          ),
        );
      const before = await counted();
      expectGeneric401(await discoverableLogin(t, org, authenticator, { userHandle: userHandleOf('per_nobody') }));
      expectGeneric401(await discoverableLogin(t, org, authenticator, { userHandle: null }));
      expectGeneric401(await discoverableLogin(t, org, authenticator, { userHandle: Buffer.from([0, 0xff, 1]).toString('base64url') }));
      expectGeneric401(await discoverableLogin(t, org, authenticator, { userHandle: 'not base64url!' }));
      assert.deepEqual(await attemptEvents(t, org), [], 'attempts that name no one are not in the audit log');
      assert.deepEqual(await counted(), [before[0]! + 1, before[1]! + 1, before[2]! + 2]);
      assert.equal(await failuresOn(org, 'per_nobody'), 1, 'an unknown user handle is counted, as an unknown handle is');
    });

    it("refuses another person's passkey answering with this person's user handle (the by-handle checks still hold)", async () => {
      const org = await passkeyOrg();
      const a = await personWithPasskey(org);
      const b = await personWithPasskey(org);
      expectGeneric401(await discoverableLogin(t, org, b.authenticator, { userHandle: userHandleOf(a.person.id) }));
      const events = await attemptEvents(t, org);
      assert.deepEqual(
        events.map((e) => [e.person_id, e.outcome, e.reason]),
        [[a.person.id, 'failure', 'no_such_credential']],
      );
    });

    it("refuses a passkey imported from another system: its user handle is that system's, naming nobody here", async () => {
      const org = await passkeyOrg();
      const person = await loginPerson(t, org);
      const authenticator = new SoftwareAuthenticator();
      await importCredential(t, org, person.id, 'public-key', importParams(authenticator));
      expectGeneric401(await discoverableLogin(t, org, authenticator));
      assert.equal((await passkeyLogin(t, org, person.email, authenticator)).status, 200, 'by handle it logs in');
    });

    it("refuses a user handle naming a person of another organisation, even with that person's own passkey", async () => {
      const org = await passkeyOrg();
      const other = await passkeyOrg();
      const { person, authenticator } = await personWithPasskey(other);
      const unknown = { method: 'webauthn', outcome: 'failure', reason: 'unknown_user_handle' };
      const before = await unauditedAttempts(t, unknown);
      expectGeneric401(await discoverableLogin(t, org, authenticator));
      assert.deepEqual(await attemptEvents(t, org), []);
      assert.equal(await unauditedAttempts(t, unknown), before + 1);
      assert.equal((await discoverableLogin(t, other, authenticator)).status, 200, 'in its own organisation it logs in');
      assert.equal((await attemptEvents(t, other)).at(-1)?.person_id, person.id);
    });

    it('delays an unknown user handle after 5 failures, as a known one', async () => {
      const org = await passkeyOrg();
      const stranger = new SoftwareAuthenticator({ userHandle: userHandleOf('per_nobody_here') });
      for (let i = 0; i < 5; i++) expectGeneric401(await discoverableLogin(t, org, stranger));
      const waiting = await discoverableLogin(t, org, stranger);
      assert.deepEqual([waiting.status, errorCodes(waiting.body), waiting.headers.get('retry-after')], [429, ['TOO_MANY_ATTEMPTS'], '1']);
    });

    it("locks the user handle's counter after 100 failures, apart from the handles'; an administrator's reset clears it", async () => {
      const org = await passkeyOrg();
      const { person, authenticator } = await personWithPasskey(org);
      const guesser = new SoftwareAuthenticator({ userHandle: userHandleOf(person.id) });
      for (let i = 0; i < MAX_CONSECUTIVE_FAILURES; i++) {
        clock.at += MAX_DELAY_MS;
        expectGeneric401(await discoverableLogin(t, org, guesser));
      }
      clock.at += MAX_DELAY_MS;
      const locked = await discoverableLogin(t, org, authenticator);
      assert.deepEqual([locked.status, errorCodes(locked.body)], [429, ['TOO_MANY_ATTEMPTS']], 'the right passkey too');
      assert.match(locked.body.errors[0].message, /locked after 100 consecutive failed attempts/);
      assert.equal(await failuresOn(org, person.id), MAX_CONSECUTIVE_FAILURES);
      assert.equal((await passkeyLogin(t, org, person.email, authenticator)).status, 200, "the handle's counter is its own");

      const listed = await t.call('GET', `/persons/${person.id}/authn-attempts`, { as: org });
      assert.deepEqual(
        listed.body.result.map((r: Record<string, unknown>) => [r.credential_type, r.failures, r.state]),
        [['public-key', MAX_CONSECUTIVE_FAILURES, 'locked']],
      );
      assert.equal((await t.call('DELETE', `/persons/${person.id}/authn-attempts`, { as: org })).status, 204);
      assert.equal(await failuresOn(org, person.id), undefined);
      const after = await discoverableLogin(t, org, authenticator);
      assert.equal(after.status, 200, JSON.stringify(after.body));
    });

    it("counts the user handle's counter among a person's, for a reset even if it was counted before it named them", () => {
      const person = { id: 'per_x', handles: [{ type: 'email_address' as const, value: 'x@example.com' }] };
      const own = userHandleCounter({ orgId: 'org_x', namedId: person.id, personId: null }, hashCode).subject;
      assert.ok(handleCounterSubjects('org_x', person, hashCode).includes(own));
      assert.ok(handleCounterSubjects('org_x', person, hashCode, ['public-key']).includes(own), 'a new passkey starts it again');
      assert.ok(!handleCounterSubjects('org_x', person, hashCode, ['password', 'totp']).includes(own));
      assert.match(own, /^att_/);
      assert.doesNotMatch(own, /per_x/);
    });
  });
}
