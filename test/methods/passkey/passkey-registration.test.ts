import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SoftwareAuthenticator } from '../../../src/dev/software-authenticator.ts';
import { loginPerson, passwordJwt, passwordPerson } from '../../helpers/authn.ts';
import { backends } from '../../helpers/backends.ts';
import { EXCHANGE, JWT_TYPE, mintPersonToken, registerClient, token } from '../../helpers/oauth.ts';
import { errorCodes, type Response, startTestService, type TestOrg, type TestService } from '../../helpers/service.ts';
import { configurePasskeys, importParams, ORIGIN, passkeyLogin, RP_ID, userHandleOf } from './passkeys.ts';

const OPTIONS = '/authn/webauthn/registration/options';
const VERIFY = '/authn/webauthn/registration/verify';

for (const backend of backends()) {
  describe(`Passkey registration on ${backend.name}`, () => {
    let t: TestService;
    let org: TestOrg;
    before(async () => {
      t = await startTestService(backend);
      org = await t.org();
      await configurePasskeys(t, org);
    });
    after(() => t.close());

    const bearer = (jwt: string) => ({ 'service-orgid': org.orgId, authorization: `Bearer ${jwt}` });
    const passkeysOf = async (personId: string) =>
      (await t.call('GET', `/persons/${personId}/credentials`, { as: org })).body.result.filter((c: { type: string }) => c.type === 'public-key');
    const TAKEN = (field: string) =>
      `${field}: this passkey is already registered in the organisation, for this person or another; a passkey belongs to one person`;

    /** Options then the authenticator's attestation then verify, all as `as`. */
    async function register(
      as: Record<string, string> | TestOrg,
      authenticator: SoftwareAuthenticator,
      optionsBody: unknown = {},
      origin = ORIGIN,
    ): Promise<Response> {
      const started = await t.call('POST', OPTIONS, { as, body: optionsBody });
      assert.equal(started.status, 200, JSON.stringify(started.body));
      const { challenge_id, options } = started.body.result;
      const response = authenticator.register({ challenge: options.challenge, rpId: options.rp.id, origin, userId: options.user.id });
      return t.call('POST', VERIFY, { as, body: { challenge_id, response, label: 'Laptop' } });
    }

    it("registers a passkey with the person's own JWT, answers spec §2.3's credential, and it logs in", async () => {
      const person = await passwordPerson(t, org);
      const authenticator = new SoftwareAuthenticator();
      const created = await register(bearer(await passwordJwt(t, org, person)), authenticator);
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const { id, ...rest } = created.body.result;
      assert.match(id, /^crd_/);
      assert.deepEqual(rest, {
        last_used: null,
        type: 'public-key',
        label: 'Laptop',
        params: {
          webauthn_credential_id: authenticator.credentialId,
          public_key: Buffer.from(authenticator.cosePublicKey).toString('base64'),
          attestation_type: 'none',
          authenticator: { aaguid: Buffer.from(authenticator.aaguid).toString('base64'), sign_count: 0, clone_warning: false },
        },
      });
      const loggedIn = await passkeyLogin(t, org, person.email, authenticator);
      assert.equal(loggedIn.status, 200, JSON.stringify(loggedIn.body));
      assert.equal(loggedIn.body.result.person_id, person.id);
    });

    it('registers for any person of the organisation with an admin key and person_id; the options name the person and exclude their passkeys', async () => {
      const person = await loginPerson(t, org);
      const first = new SoftwareAuthenticator();
      assert.equal((await register(org, first, { person_id: person.id })).status, 201);
      const again = await t.call('POST', OPTIONS, { as: org, body: { person_id: person.id } });
      const { options } = again.body.result;
      assert.deepEqual([options.rp.id, options.user.name, Buffer.from(options.user.id, 'base64url').toString()], [RP_ID, person.email, person.id]);
      assert.deepEqual(
        options.excludeCredentials.map((c: { id: string }) => c.id),
        [first.credentialId],
      );
      assert.deepEqual([options.attestation, options.authenticatorSelection.userVerification], ['none', 'required']);
    });

    it('refuses the same authenticator registered twice with 409', async () => {
      const person = await loginPerson(t, org);
      const authenticator = new SoftwareAuthenticator();
      assert.equal((await register(org, authenticator, { person_id: person.id })).status, 201);
      const twice = await register(org, authenticator, { person_id: person.id });
      assert.deepEqual([twice.status, errorCodes(twice.body), twice.body.errors[0].message], [409, ['PASSKEY_ALREADY_REGISTERED'], TAKEN('body.response')]);
      assert.equal((await passkeysOf(person.id)).length, 1);
    });

    it('regression: one passkey was registered for two persons and imported for a third; now a credential id is the organisation’s once (W3C WebAuthn §7.1 step 26): 409 PASSKEY_ALREADY_REGISTERED naming the field, nothing stored, and another organisation may hold it', async () => {
      const [holder, second, third] = [await loginPerson(t, org), await loginPerson(t, org), await loginPerson(t, org)];
      const authenticator = new SoftwareAuthenticator();
      assert.equal((await register(org, authenticator, { person_id: holder.id })).status, 201);
      const registered = await register(org, authenticator, { person_id: second.id });
      assert.deepEqual(
        [registered.status, errorCodes(registered.body), registered.body.errors[0].message],
        [409, ['PASSKEY_ALREADY_REGISTERED'], TAKEN('body.response')],
      );
      const imported = await t.call('POST', `/persons/${third.id}/credentials`, { as: org, body: { type: 'public-key', params: importParams(authenticator) } });
      assert.deepEqual(
        [imported.status, errorCodes(imported.body), imported.body.errors[0].message],
        [409, ['PASSKEY_ALREADY_REGISTERED'], TAKEN('body.params.webauthn_credential_id')],
      );
      assert.deepEqual([(await passkeysOf(second.id)).length, (await passkeysOf(third.id)).length], [0, 0]);
      const events = await t.call('GET', '/audit/events?type=credential.created&limit=100', { as: org });
      const createdFor = events.body.result.map((e: { data: Record<string, unknown> }) => e.data.person_id);
      assert.ok(createdFor.includes(holder.id), 'the events are read');
      assert.ok(!createdFor.includes(second.id) && !createdFor.includes(third.id), 'no credential.created event for a refused one');
      // The holder's passkey is untouched and logs in as the holder (the software authenticator took
      // the refused ceremony's user.id as its user handle: the holder's is given back).
      const loggedIn = await passkeyLogin(t, org, holder.email, authenticator, { userHandle: userHandleOf(holder.id) });
      assert.deepEqual([loggedIn.status, loggedIn.body.result?.person_id], [200, holder.id]);

      const elsewhere = await t.org();
      await configurePasskeys(t, elsewhere);
      const stranger = await loginPerson(t, elsewhere);
      assert.equal((await register(elsewhere, authenticator, { person_id: stranger.id })).status, 201, 'another organisation is another relying party');
    });

    it('refuses a registration of a passkey imported for another person, and an import of a registered one', async () => {
      const [importer, registrant] = [await loginPerson(t, org), await loginPerson(t, org)];
      const imported = new SoftwareAuthenticator();
      assert.equal(
        (await t.call('POST', `/persons/${importer.id}/credentials`, { as: org, body: { type: 'public-key', params: importParams(imported) } })).status,
        201,
      );
      const registered = await register(org, imported, { person_id: registrant.id });
      assert.deepEqual([registered.status, errorCodes(registered.body)], [409, ['PASSKEY_ALREADY_REGISTERED']]);
      assert.deepEqual(await passkeysOf(registrant.id), []);
    });

    it('of concurrent registrations and imports of one passkey for six persons, exactly one is stored; the others are 409 PASSKEY_ALREADY_REGISTERED', async () => {
      const persons = await Promise.all(Array.from({ length: 6 }, () => loginPerson(t, org)));
      const authenticator = new SoftwareAuthenticator();
      // Each registration's options first, so that the six verify and import calls race.
      const ceremonies = await Promise.all(
        persons.slice(0, 3).map(async (person) => {
          const started = (await t.call('POST', OPTIONS, { as: org, body: { person_id: person.id } })).body.result;
          const response = authenticator.register({ challenge: started.options.challenge, rpId: RP_ID, origin: ORIGIN, userId: started.options.user.id });
          return { challenge_id: started.challenge_id, response };
        }),
      );
      const answers = await Promise.all([
        ...ceremonies.map((body) => t.call('POST', VERIFY, { as: org, body })),
        ...persons
          .slice(3)
          .map((person) => t.call('POST', `/persons/${person.id}/credentials`, { as: org, body: { type: 'public-key', params: importParams(authenticator) } })),
      ]);
      assert.deepEqual(answers.map((a) => a.status).sort(), [201, 409, 409, 409, 409, 409], JSON.stringify(answers.map((a) => a.body)));
      for (const refused of answers.filter((a) => a.status === 409)) assert.deepEqual(errorCodes(refused.body), ['PASSKEY_ALREADY_REGISTERED']);
      const held = (await Promise.all(persons.map((person) => passkeysOf(person.id)))).flat();
      assert.deepEqual(
        held.map((c: any) => c.params.webauthn_credential_id),
        [authenticator.credentialId],
      );
    });

    it('refuses an attestation from another origin, and a spent challenge, with 400 naming the field', async () => {
      const person = await loginPerson(t, org);
      const authenticator = new SoftwareAuthenticator();
      const wrongOrigin = await register(org, authenticator, { person_id: person.id }, 'https://evil.example.net');
      assert.equal(wrongOrigin.status, 400);
      assert.match(wrongOrigin.body.errors[0].message, /^body\.response: does not verify/);
      const started = (await t.call('POST', OPTIONS, { as: org, body: { person_id: person.id } })).body.result;
      const response = authenticator.register({ challenge: started.options.challenge, rpId: RP_ID, origin: ORIGIN });
      assert.equal((await t.call('POST', VERIFY, { as: org, body: { challenge_id: started.challenge_id, response } })).status, 201);
      const replay = await t.call('POST', VERIFY, { as: org, body: { challenge_id: started.challenge_id, response } });
      assert.equal(replay.status, 400);
      assert.match(replay.body.errors[0].message, /^body\.challenge_id: names no registration challenge/);
    });

    it("regression: a person JWT spent another person's registration challenge before it was checked; now that answers as an unknown challenge and the ceremony still finishes", async () => {
      const a = await passwordPerson(t, org);
      const b = await passwordPerson(t, org);
      const asA = bearer(await passwordJwt(t, org, a));
      const asB = bearer(await passwordJwt(t, org, b));
      const forB = (await t.call('POST', OPTIONS, { as: asB, body: {} })).body.result;
      const authenticator = new SoftwareAuthenticator();
      const response = authenticator.register({ challenge: forB.options.challenge, rpId: RP_ID, origin: ORIGIN });
      const unknown = await t.call('POST', VERIFY, { as: asA, body: { challenge_id: 'wch_01jq3v5r8g2n4m6p8r0t2v4x6z', response } });
      const foreign = await t.call('POST', VERIFY, { as: asA, body: { challenge_id: forB.challenge_id, response } });
      assert.deepEqual([foreign.status, foreign.body], [400, unknown.body], 'the same answer as a challenge that does not exist');
      assert.match(foreign.body.errors[0].message, /^body\.challenge_id: names no registration challenge/);
      const finished = await t.call('POST', VERIFY, { as: asB, body: { challenge_id: forB.challenge_id, response } });
      assert.equal(finished.status, 201, JSON.stringify(finished.body));
      assert.equal(finished.body.result.params.webauthn_credential_id, authenticator.credentialId);
    });

    it("lets an admin key finish any person of the organisation's ceremony", async () => {
      const person = await passwordPerson(t, org);
      const started = (await t.call('POST', OPTIONS, { as: bearer(await passwordJwt(t, org, person)), body: {} })).body.result;
      const response = new SoftwareAuthenticator().register({ challenge: started.options.challenge, rpId: RP_ID, origin: ORIGIN });
      const finished = await t.call('POST', VERIFY, { as: org, body: { challenge_id: started.challenge_id, response } });
      assert.equal(finished.status, 201, JSON.stringify(finished.body));
    });

    it('refuses a person JWT naming any person_id (400)', async () => {
      const a = await loginPerson(t, org);
      const b = await loginPerson(t, org);
      const asA = bearer(await mintPersonToken(t, org, a.id));
      for (const personId of [b.id, a.id]) {
        const named = await t.call('POST', OPTIONS, { as: asA, body: { person_id: personId } });
        assert.equal(named.status, 400);
        assert.match(named.body.errors[0].message, /^body\.person_id: is for an admin key only/);
      }
    });

    it('refuses a JWT a client holds for the person (delegated) with 403', async () => {
      const person = await loginPerson(t, org);
      const client = await registerClient(t, org);
      const personJwt = await mintPersonToken(t, org, person.id);
      const exchanged = await token(
        t,
        { grant_type: EXCHANGE, subject_token: personJwt, subject_token_type: JWT_TYPE, requested_token_type: JWT_TYPE },
        client,
      );
      const response = await t.call('POST', OPTIONS, { as: bearer(exchanged.body.access_token), body: {} });
      assert.deepEqual([response.status, errorCodes(response.body)], [403, ['FORBIDDEN']]);
    });

    it('answers 401 without credentials, for a bad token, for a token of another organisation and for a wrong key', async () => {
      const other = await t.org();
      const stranger = await loginPerson(t, other);
      const cases: [Record<string, string>, RegExp][] = [
        [{ 'service-orgid': org.orgId }, /^header Authorization: a person JWT \(Bearer\) or an admin Service-API-Key is required$/],
        [bearer('not-a-jwt'), /^header Authorization: the token is not a well-formed JWT$/],
        [bearer(await mintPersonToken(t, other, stranger.id)), /^header Authorization: the token is of another organisation$/],
        [{ 'service-orgid': org.orgId, 'service-api-key': 'tsk_wrong' }, /^header Service-API-Key: is not a valid key of this organisation$/],
      ];
      for (const [as, message] of cases) {
        const response = await t.call('POST', OPTIONS, { as, body: {} });
        assert.equal(response.status, 401, JSON.stringify(response.body));
        assert.match(response.body.errors[0].message, message);
      }
    });

    it('refuses both an API key and a person JWT (400), and an admin key without person_id (400)', async () => {
      const person = await loginPerson(t, org);
      const both = await t.call('POST', OPTIONS, { as: { ...org.headers, authorization: `Bearer ${await mintPersonToken(t, org, person.id)}` }, body: {} });
      assert.deepEqual([both.status, errorCodes(both.body)], [400, ['INVALID_HEADER']]);
      const missing = await t.call('POST', OPTIONS, { as: org, body: {} });
      assert.equal(missing.status, 400);
      assert.match(missing.body.errors[0].message, /^body\.person_id: is required with an admin key/);
      const unknown = await t.call('POST', OPTIONS, { as: org, body: { person_id: 'per_nobody' } });
      assert.deepEqual([unknown.status, unknown.body.errors[0].message], [404, 'body.person_id: no person of this organisation has this id']);
    });
  });
}
