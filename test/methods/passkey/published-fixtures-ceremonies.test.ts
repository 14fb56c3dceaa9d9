import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { credentialTypeContext } from '../../../src/credentials/context.ts';
import { ApiError } from '../../../src/errors/api-error.ts';
import type { WebAuthnDeps } from '../../../src/methods/passkey/deps.ts';
import { authenticateWithPasskey } from '../../../src/methods/passkey/login.ts';
import { finishRegistration } from '../../../src/methods/passkey/registration.ts';
import { KeyRing } from '../../../src/oauth/keys/key-ring.ts';
import { TokenIssuer } from '../../../src/oauth/tokens/issuer.ts';
import { TokenReader } from '../../../src/oauth/tokens/reader.ts';
import type { Organization } from '../../../src/store/types.ts';
import type { WebAuthnChallengePurpose } from '../../../src/store/webauthn-challenges/store.ts';
import { attemptEvents, importCredential, loginPerson } from '../../helpers/authn.ts';
import { backends } from '../../helpers/backends.ts';
import { claims } from '../../helpers/oauth.ts';
import { errorCodes, startTestService, TEST_SECRET, type TestOrg, type TestService } from '../../helpers/service.ts';
import {
  FLAG_UP,
  lastByteFlipped,
  rpIdHashFlipped,
  withAttestation,
  withAuthenticatorData,
  withClientData,
  withDerHeaderChanged,
  withSignatureFlipped,
} from './fixtures/edits.ts';
import { ASSERTION_WITH_UV, NONE_FIREFOX_ANDROID, PACKED_SELF, type RecordedRegistration } from './fixtures/simplewebauthn-recorded.ts';
import {
  assertionResponse,
  challengeOf,
  importParams,
  registrationResponse,
  W3C_ORIGIN,
  W3C_RP_ID,
  W3C_TEST_VECTORS,
  type W3cTestVector,
} from './fixtures/w3c-test-vectors.ts';
import { asBrowser, loginOptions, storedAuthenticator } from './passkeys.ts';

/**
 * Published answers (W3C WebAuthn L3 test vectors; responses recorded with @simplewebauthn's
 * tests) through the service's ceremonies: the options call issues and keeps a challenge as for
 * any browser, then the kept row's challenge is replaced, through the store, by the one the
 * fixture answers (as if the random bytes had been those), and the fixture is the browser's
 * answer. Successes go through the HTTP routes; refusals through the functions the routes call
 * (finishRegistration, authenticateWithPasskey) over the same store, so that each row can assert
 * the API's error, the verifier's reason (which the route only logs) and the audit's word.
 */

const V = W3C_TEST_VECTORS;
const GENERIC_401 = 'authentication: the handle and the secret do not match';
const DOES_NOT_VERIFY =
  "body.response: does not verify: the attestation must answer this challenge, from one of the organisation's origins, for its RP id, with user verification";
/** The verifiers' reason (logged) for an answer whose clientDataJSON says "crossOrigin": true. */
const CROSS_ORIGIN_IFRAME = /^the ceremony ran in a cross-origin iframe \(clientDataJSON\.crossOrigin is true\), which this service never expects$/;

for (const backend of backends()) {
  describe(`Published passkey answers through the ceremonies on ${backend.name}`, () => {
    let t: TestService;
    let deps: WebAuthnDeps;
    before(async () => {
      t = await startTestService(backend);
      const store = t.service.store;
      const keys = new KeyRing(store, TEST_SECRET);
      await keys.init();
      const tokens = { store, keys, issuer: () => t.url, now: Date.now };
      deps = { store, issuer: new TokenIssuer(tokens), reader: new TokenReader(tokens), hashCode: credentialTypeContext(TEST_SECRET).hashCode, now: Date.now };
    });
    after(() => t.close());

    /** A new organisation whose passkeys are for `rpId` on `origins`. */
    async function organisation(rpId: string, origins: string[], extra: Record<string, unknown> = {}): Promise<TestOrg> {
      const org = await t.org();
      const configured = await t.call('PATCH', '/organizations/config', { as: org, body: { webauthn_rp_id: rpId, webauthn_origins: origins, ...extra } });
      assert.equal(configured.status, 200, JSON.stringify(configured.body));
      return org;
    }
    const organizationOf = async (org: TestOrg): Promise<Organization> => (await t.service.store.getOrganization(org.orgId))!;

    /** The row the options call kept, with its challenge replaced by the fixture's (or left as issued, for `undefined`). */
    async function answeringWith(org: TestOrg, challengeId: string, purpose: WebAuthnChallengePurpose, challenge: string | undefined): Promise<void> {
      if (challenge === undefined) return;
      const kept = await t.service.store.spendWebAuthnChallenge(org.orgId, challengeId, purpose, Date.now());
      assert.ok(kept, 'the options call kept a challenge');
      await t.service.store.createWebAuthnChallenge({ ...kept, challenge });
    }

    /** POST registration/options for the person (admin key); the challenge id, its challenge being `challenge`. */
    async function registrationCeremony(org: TestOrg, personId: string, challenge: string | undefined): Promise<string> {
      const started = await t.call('POST', '/authn/webauthn/registration/options', { as: org, body: { person_id: personId } });
      assert.equal(started.status, 200, JSON.stringify(started.body));
      await answeringWith(org, started.body.result.challenge_id, 'registration', challenge);
      return started.body.result.challenge_id;
    }

    /** POST options by the person's email, as a browser; the challenge id, its challenge being `challenge`. */
    async function loginCeremony(org: TestOrg, email: string, challenge: string | undefined): Promise<string> {
      const { challenge_id } = await loginOptions(t, org, email);
      await answeringWith(org, challenge_id, 'login', challenge);
      return challenge_id;
    }

    async function registerOverApi(org: TestOrg, personId: string, challenge: string, response: unknown) {
      const challenge_id = await registrationCeremony(org, personId, challenge);
      return t.call('POST', '/authn/webauthn/registration/verify', { as: org, body: { challenge_id, response, label: 'Published' } });
    }

    const publicKeyCredentials = async (org: TestOrg, personId: string) =>
      (await t.call('GET', `/persons/${personId}/credentials`, { as: org })).body.result.filter((c: { type: string }) => c.type === 'public-key');

    it('registers the W3C packed/ES256 vector over the API, and logs in with its authentication: a person JWT, amr swk (backup eligible), user and mfa', async () => {
      const org = await organisation(W3C_RP_ID, [W3C_ORIGIN]);
      const person = await loginPerson(t, org);
      const created = await registerOverApi(org, person.id, challengeOf(V.packedEs256.registration.challenge), registrationResponse(V.packedEs256));
      assert.equal(created.status, 201, JSON.stringify(created.body));
      assert.deepEqual(created.body.result.params, {
        ...importParams(V.packedEs256),
        attestation_type: 'packed',
        authenticator: { ...importParams(V.packedEs256).authenticator, clone_warning: false },
      });

      const challenge_id = await loginCeremony(org, person.email, challengeOf(V.packedEs256.authentication.challenge));
      const loggedIn = await asBrowser(t, org, '/authn/webauthn/verify', { challenge_id, response: assertionResponse(V.packedEs256) });
      assert.equal(loggedIn.status, 200, JSON.stringify(loggedIn.body));
      assert.deepEqual([claims(loggedIn.body.result.token).sub, claims(loggedIn.body.result.token).amr], [person.id, ['swk', 'user', 'mfa']]);
      const replay = await asBrowser(t, org, '/authn/webauthn/verify', { challenge_id, response: assertionResponse(V.packedEs256) });
      assert.deepEqual([replay.status, replay.body.errors[0].message], [401, GENERIC_401], 'the challenge was spent');
    });

    it('imports the W3C vector with the longest credential id (1023 bytes) and logs in with it over the API', async () => {
      const vector = V.noneEs256LongCredentialId;
      const org = await organisation(W3C_RP_ID, [W3C_ORIGIN]);
      const person = await loginPerson(t, org);
      await importCredential(t, org, person.id, 'public-key', importParams(vector));
      const challenge_id = await loginCeremony(org, person.email, challengeOf(vector.authentication.challenge));
      const loggedIn = await asBrowser(t, org, '/authn/webauthn/verify', { challenge_id, response: assertionResponse(vector) });
      assert.equal(loggedIn.status, 200, JSON.stringify(loggedIn.body));
      assert.equal(loggedIn.body.result.person_id, person.id);
    });

    it('refuses over the API a login and a registration made in a cross-origin iframe (W3C none/ES256 "crossOrigin": true): the generic 401 and the 400 of any answer that does not verify, audited, nothing stored or counted', async () => {
      const vector = V.noneEs256CrossOrigin;
      const org = await organisation(W3C_RP_ID, [W3C_ORIGIN]);
      const holder = await loginPerson(t, org);
      // Held by import, as a passkey registered elsewhere would be: the service never registers it.
      await importCredential(t, org, holder.id, 'public-key', importParams(vector));
      const before = await storedAuthenticator(t, org, holder.id);
      const challenge_id = await loginCeremony(org, holder.email, challengeOf(vector.authentication.challenge));
      const login = await asBrowser(t, org, '/authn/webauthn/verify', { challenge_id, response: assertionResponse(vector) });
      assert.deepEqual([login.status, errorCodes(login.body), login.body.errors[0].message], [401, ['UNAUTHENTICATED'], GENERIC_401]);
      assert.deepEqual(
        (await attemptEvents(t, org)).map((e) => [e.person_id, e.outcome, e.reason]),
        [[holder.id, 'failure', 'assertion_refused']],
      );
      assert.deepEqual(await storedAuthenticator(t, org, holder.id), before, 'the counter is untouched');

      const registrant = await loginPerson(t, org);
      const registered = await registerOverApi(org, registrant.id, challengeOf(vector.registration.challenge), registrationResponse(vector));
      assert.deepEqual([registered.status, errorCodes(registered.body), registered.body.errors[0].message], [400, ['INVALID_FIELD'], DOES_NOT_VERIFY]);
      assert.deepEqual(await publicKeyCredentials(org, registrant.id), []);
    });

    for (const [name, recorded] of [
      ['Firefox on Android ("none")', NONE_FIREFOX_ANDROID],
      ['a "packed" self attestation whose counter is already 1589874425', PACKED_SELF],
    ] as [string, RecordedRegistration][]) {
      it(`registers the recorded answer of ${name} over the API, storing the attested credential and counter`, async () => {
        const org = await organisation(recorded.rpId, [recorded.origin]);
        const person = await loginPerson(t, org);
        const created = await registerOverApi(org, person.id, recorded.challenge, recorded.response);
        assert.equal(created.status, 201, JSON.stringify(created.body));
        const { params } = created.body.result;
        assert.deepEqual(
          [params.webauthn_credential_id, params.public_key, params.attestation_type, params.authenticator.sign_count],
          [
            recorded.expected.credentialId,
            Buffer.from(recorded.expected.publicKey, 'base64url').toString('base64'),
            recorded.expected.fmt,
            recorded.expected.counter,
          ],
        );
      });
    }

    it('logs in with a recorded assertion (UV, counter 1643868837) and stores its counter; the same answer to a later ceremony with that challenge is a counter that did not increase: clone_warning, refused where the organisation says so', async () => {
      const recorded = ASSERTION_WITH_UV;
      const params = {
        webauthn_credential_id: recorded.credential.id,
        public_key: Buffer.from(recorded.credential.publicKey, 'base64url').toString('base64'),
        attestation_type: 'none',
        authenticator: { aaguid: Buffer.alloc(16).toString('base64'), sign_count: 0 },
      };
      const lenient = await organisation(recorded.rpId, [recorded.origin]);
      const person = await loginPerson(t, lenient);
      // Imported from another system: its user handle ("internalUserId") is that system's, not known here.
      await importCredential(t, lenient, person.id, 'public-key', params);
      for (const expected of [false, true]) {
        const challenge_id = await loginCeremony(lenient, person.email, recorded.challenge);
        const loggedIn = await asBrowser(t, lenient, '/authn/webauthn/verify', { challenge_id, response: recorded.response });
        assert.equal(loggedIn.status, 200, JSON.stringify(loggedIn.body));
        assert.deepEqual(await storedAuthenticator(t, lenient, person.id), {
          aaguid: params.authenticator.aaguid,
          sign_count: 1_643_868_837,
          clone_warning: expected,
        });
      }
      assert.deepEqual(
        (await attemptEvents(t, lenient)).map((e) => [e.outcome, e.reason]),
        [
          ['success', null],
          ['success', 'clone_warning'],
        ],
      );

      const strict = await organisation(recorded.rpId, [recorded.origin], { webauthn_refuse_clone_warning: true });
      const other = await loginPerson(t, strict);
      await importCredential(t, strict, other.id, 'public-key', {
        ...params,
        authenticator: { ...params.authenticator, sign_count: recorded.credential.reportedCounter },
      });
      const challenge_id = await loginCeremony(strict, other.email, recorded.challenge);
      const refused: string[] = [];
      await assert.rejects(
        authenticateWithPasskey(deps, await organizationOf(strict), { challenge_id, response: recorded.response }, (reason) => refused.push(reason)),
        (error: unknown) => error instanceof ApiError && error.code === 'UNAUTHENTICATED' && error.message === GENERIC_401,
      );
      assert.deepEqual(refused, [], 'the assertion itself verified');
      assert.deepEqual(
        (await attemptEvents(t, strict)).map((e) => [e.outcome, e.reason]),
        [['failure', 'clone_warning']],
      );
    });

    // Registration refusals: [why, the organisation's RP id and origins, the answer, the challenge the ceremony issued (undefined: its own random one), the verifier's reason].
    const packed = V.packedEs256;
    const registrationRefusals: [string, [string, string[]], unknown, string | undefined, RegExp][] = [
      [
        'no user verification, which registration requires (W3C none/ES256)',
        [W3C_RP_ID, [W3C_ORIGIN]],
        registrationResponse(V.noneEs256),
        challengeOf(V.noneEs256.registration.challenge),
        /^User verification was required, but user could not be verified$/,
      ],
      [
        'an algorithm the service does not offer (W3C packed/ES512, COSE -36)',
        [W3C_RP_ID, [W3C_ORIGIN]],
        registrationResponse(V.packedEs512),
        challengeOf(V.packedEs512.registration.challenge),
        /^Unexpected public key alg "-36", expected one of "-8, -7, -257"$/,
      ],
      [
        "an answer to another challenge than the ceremony's (a recorded answer replayed)",
        [W3C_RP_ID, [W3C_ORIGIN]],
        registrationResponse(packed),
        undefined,
        new RegExp(`^Unexpected registration response challenge "${challengeOf(packed.registration.challenge)}", expected "[A-Za-z0-9_-]{43}"$`),
      ],
      [
        'an origin the organisation does not list',
        [W3C_RP_ID, ['https://login.example.org']],
        registrationResponse(packed),
        challengeOf(packed.registration.challenge),
        /^Unexpected registration response origin "https:\/\/example\.org", expected one of: https:\/\/login\.example\.org$/,
      ],
      [
        'clientDataJSON.origin changed',
        [W3C_RP_ID, [W3C_ORIGIN]],
        withClientData(registrationResponse(packed), { origin: 'https://evil.example.org' }),
        challengeOf(packed.registration.challenge),
        /^Unexpected registration response origin "https:\/\/evil\.example\.org", expected one of: https:\/\/example\.org$/,
      ],
      [
        'clientDataJSON.challenge rewritten to the ceremony’s own (the packed attestation signed the original)',
        [W3C_RP_ID, [W3C_ORIGIN]],
        withClientData(registrationResponse(packed), { challenge: Buffer.alloc(32, 9).toString('base64url') }),
        Buffer.alloc(32, 9).toString('base64url'),
        /^the attestation does not verify$/,
      ],
      [
        'clientDataJSON.type of an assertion',
        [W3C_RP_ID, [W3C_ORIGIN]],
        withClientData(registrationResponse(packed), { type: 'webauthn.get' }),
        challengeOf(packed.registration.challenge),
        /^Unexpected registration response type: webauthn\.get$/,
      ],
      [
        'a ceremony run in a cross-origin iframe (W3C none/ES256 "crossOrigin": true, with user verification)',
        [W3C_RP_ID, [W3C_ORIGIN]],
        registrationResponse(V.noneEs256CrossOrigin),
        challengeOf(V.noneEs256CrossOrigin.registration.challenge),
        CROSS_ORIGIN_IFRAME,
      ],
      [
        'a byte of the attestation signature flipped',
        [W3C_RP_ID, [W3C_ORIGIN]],
        withAttestation(registrationResponse(packed), { sig: lastByteFlipped }),
        challengeOf(packed.registration.challenge),
        /^the attestation does not verify$/,
      ],
      [
        'the RP id hash changed (an answer for another relying party)',
        [W3C_RP_ID, [W3C_ORIGIN]],
        withAttestation(registrationResponse(packed), { authData: rpIdHashFlipped }),
        challengeOf(packed.registration.challenge),
        /^Unexpected RP ID hash$/,
      ],
    ];
    for (const [why, [rpId, origins], response, issued, reason] of registrationRefusals) {
      it(`refuses a registration for ${why}: 400 naming body.response, the reason logged, nothing stored, the challenge spent`, async () => {
        const org = await organisation(rpId, origins);
        const person = await loginPerson(t, org);
        const challenge_id = await registrationCeremony(org, person.id, issued);
        const keys = await t.call('GET', '/organizations/api-keys', { as: org });
        const caller = { kind: 'admin_key' as const, keyId: keys.body.result[0].id as string };
        const refused: string[] = [];
        await assert.rejects(
          finishRegistration(deps, await organizationOf(org), caller, { challenge_id, response }, (r) => refused.push(r)),
          (error: unknown) => error instanceof ApiError && error.code === 'INVALID_FIELD' && error.message === DOES_NOT_VERIFY,
        );
        assert.equal(refused.length, 1, JSON.stringify(refused));
        assert.match(refused[0]!, reason);
        assert.deepEqual(await publicKeyCredentials(org, person.id), []);
        const again = await t.call('POST', '/authn/webauthn/registration/verify', { as: org, body: { challenge_id, response } });
        assert.deepEqual([again.status, errorCodes(again.body)], [400, ['INVALID_FIELD']]);
        assert.match(again.body.errors[0].message, /^body\.challenge_id: names no registration challenge/);
      });
    }

    /** A person holding the vector's credential: registered through the API when its registration has UV, else imported. */
    async function holderOf(org: TestOrg, vector: W3cTestVector, how: 'registered' | 'imported', signCount = 0) {
      const person = await loginPerson(t, org);
      if (how === 'imported') {
        await importCredential(t, org, person.id, 'public-key', importParams(vector, signCount));
      } else {
        const created = await registerOverApi(org, person.id, challengeOf(vector.registration.challenge), registrationResponse(vector));
        assert.equal(created.status, 201, JSON.stringify(created.body));
      }
      return person;
    }

    // Login refusals: [why, the organisation's origins, the vector and how its person holds it, the answer, whether the ceremony issued the vector's challenge, the verifier's reason (none: refused before the signature), the audit's word].
    const W3C = [W3C_ORIGIN];
    const loginRefusals: [string, string[], W3cTestVector, 'registered' | 'imported', unknown, boolean, RegExp | null, string][] = [
      [
        'no user verification, which a passkey login requires (W3C packed self attestation)',
        W3C,
        V.packedSelfEs256,
        'registered',
        assertionResponse(V.packedSelfEs256),
        true,
        /^User verification required, but user could not be verified$/,
        'assertion_refused',
      ],
      [
        'a cross-origin iframe under a top origin (W3C none/ES256 topOrigin)',
        W3C,
        V.noneEs256TopOrigin,
        'imported',
        assertionResponse(V.noneEs256TopOrigin),
        true,
        /^Detected cross-origin authentication response from top origin of "https:\/\/example\.com", but a value for `expectedTopOrigin` was not specified/,
        'assertion_refused',
      ],
      [
        'a cross-origin iframe without a top origin (W3C none/ES256 "crossOrigin": true), which the library lets through',
        W3C,
        V.noneEs256CrossOrigin,
        'imported',
        assertionResponse(V.noneEs256CrossOrigin),
        true,
        CROSS_ORIGIN_IFRAME,
        'assertion_refused',
      ],
      [
        "an answer to another challenge than the ceremony's (a recorded answer replayed)",
        W3C,
        packed,
        'registered',
        assertionResponse(packed),
        false,
        new RegExp(`^Unexpected authentication response challenge "${challengeOf(packed.authentication.challenge)}", expected "[A-Za-z0-9_-]{43}"$`),
        'assertion_refused',
      ],
      [
        'an origin the organisation does not list',
        ['https://login.example.org'],
        packed,
        'imported',
        assertionResponse(packed),
        true,
        /^Unexpected authentication response origin "https:\/\/example\.org", expected one of: https:\/\/login\.example\.org$/,
        'assertion_refused',
      ],
      [
        'clientDataJSON.origin changed',
        W3C,
        packed,
        'registered',
        withClientData(assertionResponse(packed), { origin: 'https://evil.example.org' }),
        true,
        /^Unexpected authentication response origin "https:\/\/evil\.example\.org", expected one of: https:\/\/example\.org$/,
        'assertion_refused',
      ],
      [
        'clientDataJSON.type of a registration',
        W3C,
        packed,
        'registered',
        withClientData(assertionResponse(packed), { type: 'webauthn.create' }),
        true,
        /^Unexpected authentication response type: webauthn\.create$/,
        'assertion_refused',
      ],
      [
        'a byte inside the signature flipped (bad signature)',
        W3C,
        packed,
        'registered',
        withSignatureFlipped(assertionResponse(packed)),
        true,
        /^the signature does not verify with the stored public key$/,
        'assertion_refused',
      ],
      [
        'a signature that is not DER (its SEQUENCE tag changed)',
        W3C,
        packed,
        'registered',
        withDerHeaderChanged(assertionResponse(packed)),
        true,
        /^the signature is not in the one encoding it has$/,
        'assertion_refused',
      ],
      [
        'the RP id hash changed (an answer for another relying party)',
        W3C,
        packed,
        'registered',
        withAuthenticatorData(assertionResponse(packed), rpIdHashFlipped),
        true,
        /^Unexpected RP ID hash$/,
        'assertion_refused',
      ],
      [
        'the UP flag cleared (no user presence)',
        W3C,
        packed,
        'registered',
        withAuthenticatorData(assertionResponse(packed), (bytes) => Buffer.from(bytes.map((b, i) => (i === 32 ? b & ~FLAG_UP : b)))),
        true,
        /^User not present during authentication$/,
        'assertion_refused',
      ],
      [
        'a credential id the person does not hold',
        W3C,
        packed,
        'registered',
        { ...assertionResponse(packed), id: assertionResponse(V.noneEs256).id, rawId: assertionResponse(V.noneEs256).id },
        true,
        null,
        'no_such_credential',
      ],
      [
        'the user handle of another account than the one the passkey was registered for',
        W3C,
        packed,
        'registered',
        {
          ...assertionResponse(packed),
          response: { ...assertionResponse(packed).response, userHandle: Buffer.from('per_someone_else').toString('base64url') },
        },
        true,
        null,
        'user_handle_mismatch',
      ],
    ];
    for (const [why, origins, vector, how, response, fixtureChallenge, reason, audited] of loginRefusals) {
      it(`refuses a login for ${why}: the generic 401, audited as ${audited}, the counter untouched`, async () => {
        const org = await organisation(W3C_RP_ID, origins);
        const person = await holderOf(org, vector, how);
        const before = await storedAuthenticator(t, org, person.id);
        const challenge_id = await loginCeremony(org, person.email, fixtureChallenge ? challengeOf(vector.authentication.challenge) : undefined);
        const refused: string[] = [];
        await assert.rejects(
          authenticateWithPasskey(deps, await organizationOf(org), { challenge_id, response }, (r) => refused.push(r)),
          (error: unknown) => error instanceof ApiError && error.code === 'UNAUTHENTICATED' && error.message === GENERIC_401,
        );
        if (reason === null) assert.deepEqual(refused, [], 'refused before the signature was looked at');
        else {
          assert.equal(refused.length, 1, JSON.stringify(refused));
          assert.match(refused[0]!, reason);
        }
        const attempts = (await attemptEvents(t, org)).map((e) => [e.person_id, e.outcome, e.reason]);
        assert.deepEqual(attempts, [[person.id, 'failure', audited]]);
        assert.deepEqual(await storedAuthenticator(t, org, person.id), before);
      });
    }
  });
}
