import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CredentialTypeContext } from '../../../src/credentials/credential-type.ts';
import type { PublicKeyParams } from '../../../src/methods/passkey/format/params.ts';
import { publicKeyCredentialType } from '../../../src/methods/passkey/type.ts';
import { type AssertionVerification, verifyAssertion } from '../../../src/methods/passkey/verify-assertion.ts';
import { type RegistrationVerification, verifyRegistration } from '../../../src/methods/passkey/verify-registration.ts';
import {
  FLAG_UP,
  FLAG_UV,
  flagCleared,
  lastByteFlipped,
  rpIdHashFlipped,
  withAttestation,
  withAuthenticatorData,
  withClientData,
  withDerHeaderChanged,
  withSignatureFlipped,
} from './fixtures/edits.ts';
import {
  ASSERTION_WITH_UV,
  ASSERTION_WITHOUT_UV,
  NONE_FIREFOX_ANDROID,
  NONE_RSA,
  PACKED_SELF,
  type RecordedAssertion,
  type RecordedRegistration,
} from './fixtures/simplewebauthn-recorded.ts';
import {
  assertionFlags,
  assertionResponse,
  attestedCredential,
  challengeOf,
  FLAG,
  registrationResponse,
  W3C_ORIGIN,
  W3C_RP_ID,
  W3C_TEST_VECTORS,
  type W3cTestVector,
  type W3cVectorName,
} from './fixtures/w3c-test-vectors.ts';

/**
 * Published answers (the W3C WebAuthn Level 3 test vectors, and responses of real authenticators
 * recorded with @simplewebauthn's tests) through our verification of a registration and of an
 * assertion (src/methods/passkey), with the relying party's settings as an organisation
 * sets them. Every refusal names its reason: the verifier's own words, which the service logs.
 */

const context: CredentialTypeContext = {
  seal: () => assert.fail('seal is not used'),
  open: () => assert.fail('open is not used'),
  hashCode: () => assert.fail('hashCode is not used'),
};

const V = W3C_TEST_VECTORS;
const OTHER_CHALLENGE = Buffer.alloc(32, 7).toString('base64url');
const literally = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/** The verifier's reason for a refusal, or a failure naming the verification that passed. */
function reasonOf(result: RegistrationVerification | AssertionVerification): string {
  if (result.verified) assert.fail(`verified, but a refusal was expected: ${JSON.stringify(result)}`);
  return result.reason;
}

function registerW3c(vector: W3cTestVector, response: unknown = registrationResponse(vector), settings: Partial<Settings> = {}) {
  return verifyRegistration({
    response,
    expectedChallenge: settings.challenge ?? challengeOf(vector.registration.challenge),
    rpId: settings.rpId ?? W3C_RP_ID,
    origins: settings.origins ?? [W3C_ORIGIN],
    ...(settings.requireUserVerification === undefined ? {} : { requireUserVerification: settings.requireUserVerification }),
  });
}

interface Settings {
  challenge: string;
  rpId: string;
  origins: string[];
  requireUserVerification: boolean;
  signCount: number;
}

/** The params our registration stores for the vector's credential (checked against the vector below). */
function storedParams(vector: W3cTestVector, signCount = 0): Pick<PublicKeyParams, 'webauthn_credential_id' | 'public_key' | 'authenticator'> {
  return {
    webauthn_credential_id: challengeOf(vector.registration.credentialId),
    public_key: attestedCredential(vector).cosePublicKey.toString('base64'),
    authenticator: { aaguid: Buffer.from(vector.registration.aaguid, 'hex').toString('base64'), sign_count: signCount, clone_warning: false },
  };
}

function assertW3c(vector: W3cTestVector, response: unknown = assertionResponse(vector), settings: Partial<Settings> = {}) {
  return verifyAssertion({
    response,
    expectedChallenge: settings.challenge ?? challengeOf(vector.authentication.challenge),
    rpId: settings.rpId ?? W3C_RP_ID,
    origins: settings.origins ?? [W3C_ORIGIN],
    credential: storedParams(vector, settings.signCount),
    ...(settings.requireUserVerification === undefined ? {} : { requireUserVerification: settings.requireUserVerification }),
  });
}

describe('The W3C WebAuthn Level 3 test vectors (§16), registered and asserted', () => {
  // The vectors our verifier accepts, each at the user verification its flags allow.
  const accepted: [W3cVectorName, string][] = [
    ['noneEs256', 'none'],
    ['packedSelfEs256', 'packed'],
    ['noneEs256LongCredentialId', 'none'],
    ['packedEs256', 'packed'],
    ['packedRs256', 'packed'],
    ['packedEdDsa', 'packed'],
  ];
  for (const [name, fmt] of accepted) {
    const vector = V[name];
    it(`${vector.title} (#${vector.section}): the registration stores the attested credential, and its authentication verifies`, async () => {
      const attested = attestedCredential(vector);
      const registrationUv = (attested.flags & FLAG.UV) !== 0;
      const registered = await registerW3c(vector, registrationResponse(vector), { requireUserVerification: registrationUv });
      assert.ok(registered.verified, registered.verified ? '' : registered.reason);
      assert.deepEqual(registered, {
        verified: true,
        params: { ...storedParams(vector), attestation_type: fmt },
        backupEligible: (attested.flags & FLAG.BE) !== 0,
        userVerified: registrationUv,
      });
      // What registration stores passes the import's own checks unchanged (the one shape both paths store).
      const prepared = await publicKeyCredentialType.prepare(registered.params, context);
      assert.deepEqual(publicKeyCredentialType.present(prepared), registered.params);

      const assertionUv = (assertionFlags(vector) & FLAG.UV) !== 0;
      const login = await verifyAssertion({
        response: assertionResponse(vector),
        expectedChallenge: challengeOf(vector.authentication.challenge),
        rpId: W3C_RP_ID,
        origins: [W3C_ORIGIN],
        credential: registered.params,
        requireUserVerification: assertionUv,
      });
      assert.deepEqual(login, { verified: true, newSignCount: 0, cloneWarning: false, userVerified: assertionUv });
    });
  }

  const USER_NOT_VERIFIED_AT_REGISTRATION = /^User verification was required, but user could not be verified$/;
  const USER_NOT_VERIFIED_AT_LOGIN = /^User verification required, but user could not be verified$/;

  const registrationRefusals: [string, () => Promise<RegistrationVerification>, RegExp][] = [
    // As the service verifies: user verification required.
    ['none/ES256 registered without user verification, which is required', () => registerW3c(V.noneEs256), USER_NOT_VERIFIED_AT_REGISTRATION],
    ['packed/Ed25519 registered without user verification, which is required', () => registerW3c(V.packedEdDsa), USER_NOT_VERIFIED_AT_REGISTRATION],
    [
      'packed/ES512: an algorithm the service does not offer (COSE -36)',
      () => registerW3c(V.packedEs512),
      /^Unexpected public key alg "-36", expected one of "-8, -7, -257"$/,
    ],
    [
      'packed/ES256 answering a challenge other than its own (the one we issued)',
      () => registerW3c(V.packedEs256, undefined, { challenge: OTHER_CHALLENGE }),
      new RegExp(`^Unexpected registration response challenge "${challengeOf(V.packedEs256.registration.challenge)}", expected "${OTHER_CHALLENGE}"$`),
    ],
    [
      'packed/ES256 from an origin the organisation does not list',
      () => registerW3c(V.packedEs256, undefined, { origins: ['https://login.example.org'] }),
      /^Unexpected registration response origin "https:\/\/example\.org", expected one of: https:\/\/login\.example\.org$/,
    ],
    ['packed/ES256 for another RP id than the organisation’s', () => registerW3c(V.packedEs256, undefined, { rpId: 'example.com' }), /^Unexpected RP ID hash$/],
    // The vector edited in one place each (what a forger or a broken client would send).
    [
      'packed/ES256 with clientDataJSON.origin changed',
      () => registerW3c(V.packedEs256, withClientData(registrationResponse(V.packedEs256), { origin: 'https://evil.example.org' })),
      /^Unexpected registration response origin "https:\/\/evil\.example\.org", expected one of: https:\/\/example\.org$/,
    ],
    [
      'packed/ES256 with clientDataJSON.challenge changed',
      () => registerW3c(V.packedEs256, withClientData(registrationResponse(V.packedEs256), { challenge: OTHER_CHALLENGE })),
      new RegExp(`^Unexpected registration response challenge "${OTHER_CHALLENGE}", expected "${challengeOf(V.packedEs256.registration.challenge)}"$`),
    ],
    [
      'packed/ES256 with clientDataJSON.type of an assertion',
      () => registerW3c(V.packedEs256, withClientData(registrationResponse(V.packedEs256), { type: 'webauthn.get' })),
      /^Unexpected registration response type: webauthn\.get$/,
    ],
    [
      'packed/ES256 with a byte of the attestation signature flipped',
      () => registerW3c(V.packedEs256, withAttestation(registrationResponse(V.packedEs256), { sig: lastByteFlipped })),
      /^the attestation does not verify$/,
    ],
    [
      'packed self attestation (ES256) with a byte of its signature flipped',
      () => registerW3c(V.packedSelfEs256, withAttestation(registrationResponse(V.packedSelfEs256), { sig: lastByteFlipped })),
      /^the attestation does not verify$/,
    ],
    [
      'packed/ES256 with the RP id hash in authData changed',
      () => registerW3c(V.packedEs256, withAttestation(registrationResponse(V.packedEs256), { authData: rpIdHashFlipped })),
      /^Unexpected RP ID hash$/,
    ],
    [
      'packed/ES256 with the UP flag cleared',
      () => registerW3c(V.packedEs256, withAttestation(registrationResponse(V.packedEs256), { authData: flagCleared(FLAG_UP) })),
      /^User presence was required, but user was not present$/,
    ],
    [
      'packed/ES256 with the UV flag cleared',
      () => registerW3c(V.packedEs256, withAttestation(registrationResponse(V.packedEs256), { authData: flagCleared(FLAG_UV) })),
      USER_NOT_VERIFIED_AT_REGISTRATION,
    ],
  ];
  for (const [name, verify, reason] of registrationRefusals) {
    it(`refuses the registration of ${name}`, async () => {
      assert.match(reasonOf(await verify()), reason);
    });
  }

  const assertionRefusals: [string, () => Promise<AssertionVerification>, RegExp][] = [
    ['packed self attestation (ES256) asserted without user verification, which is required', () => assertW3c(V.packedSelfEs256), USER_NOT_VERIFIED_AT_LOGIN],
    ['packed/RS256 asserted without user verification', () => assertW3c(V.packedRs256), USER_NOT_VERIFIED_AT_LOGIN],
    [
      'an assertion from a cross-origin iframe under a top origin (none/ES256 "topOrigin"): the service expects no iframe',
      () => assertW3c(V.noneEs256TopOrigin),
      /^Detected cross-origin authentication response from top origin of "https:\/\/example\.com", but a value for `expectedTopOrigin` was not specified/,
    ],
    [
      'packed/ES256 answering a challenge other than its own',
      () => assertW3c(V.packedEs256, undefined, { challenge: OTHER_CHALLENGE }),
      new RegExp(`^Unexpected authentication response challenge "${challengeOf(V.packedEs256.authentication.challenge)}", expected "${OTHER_CHALLENGE}"$`),
    ],
    [
      'packed/ES256 from an origin the organisation does not list',
      () => assertW3c(V.packedEs256, undefined, { origins: ['https://login.example.org', 'https://app.example.org'] }),
      /^Unexpected authentication response origin "https:\/\/example\.org", expected one of: https:\/\/login\.example\.org, https:\/\/app\.example\.org$/,
    ],
    ['packed/ES256 for another RP id', () => assertW3c(V.packedEs256, undefined, { rpId: 'example.com' }), /^Unexpected RP ID hash$/],
    [
      'packed/ES256 checked against another credential’s public key (same id)',
      () =>
        verifyAssertion({
          response: assertionResponse(V.packedEs256),
          expectedChallenge: challengeOf(V.packedEs256.authentication.challenge),
          rpId: W3C_RP_ID,
          origins: [W3C_ORIGIN],
          credential: { ...storedParams(V.packedEs256), public_key: storedParams(V.noneEs256).public_key },
        }),
      /^the signature does not verify with the stored public key$/,
    ],
    [
      'packed/ES256 naming another credential than the one asked for',
      () =>
        verifyAssertion({
          response: assertionResponse(V.packedEs256),
          expectedChallenge: challengeOf(V.packedEs256.authentication.challenge),
          rpId: W3C_RP_ID,
          origins: [W3C_ORIGIN],
          credential: storedParams(V.noneEs256),
        }),
      /^the response is not from the credential that was asked for$/,
    ],
    // One edit each.
    [
      'packed/ES256 with a byte inside the signature’s s flipped',
      () => assertW3c(V.packedEs256, withSignatureFlipped(assertionResponse(V.packedEs256))),
      /^the signature does not verify with the stored public key$/,
    ],
    [
      'packed/RS256 with a signature byte flipped',
      () => assertW3c(V.packedRs256, withSignatureFlipped(assertionResponse(V.packedRs256)), { requireUserVerification: false }),
      /^the signature does not verify with the stored public key$/,
    ],
    [
      'packed/Ed25519 with a signature byte flipped',
      () => assertW3c(V.packedEdDsa, withSignatureFlipped(assertionResponse(V.packedEdDsa)), { requireUserVerification: false }),
      /^the signature does not verify with the stored public key$/,
    ],
    [
      'packed/ES256 whose signature is not DER (its SEQUENCE tag changed, r and s intact)',
      () => assertW3c(V.packedEs256, withDerHeaderChanged(assertionResponse(V.packedEs256))),
      /^the signature is not in the one encoding it has$/,
    ],
    [
      'packed/ES256 with clientDataJSON.origin changed',
      () => assertW3c(V.packedEs256, withClientData(assertionResponse(V.packedEs256), { origin: 'https://evil.example.org' })),
      /^Unexpected authentication response origin "https:\/\/evil\.example\.org", expected one of: https:\/\/example\.org$/,
    ],
    [
      'packed/ES256 with clientDataJSON.challenge changed',
      () => assertW3c(V.packedEs256, withClientData(assertionResponse(V.packedEs256), { challenge: OTHER_CHALLENGE })),
      new RegExp(`^Unexpected authentication response challenge "${OTHER_CHALLENGE}", expected "${challengeOf(V.packedEs256.authentication.challenge)}"$`),
    ],
    [
      'packed/ES256 with clientDataJSON.type of a registration',
      () => assertW3c(V.packedEs256, withClientData(assertionResponse(V.packedEs256), { type: 'webauthn.create' })),
      /^Unexpected authentication response type: webauthn\.create$/,
    ],
    [
      'packed/ES256 with clientDataJSON.crossOrigin made true (outside what the authenticator signed)',
      () => assertW3c(V.packedEs256, withClientData(assertionResponse(V.packedEs256), { crossOrigin: true })),
      /^the signature does not verify with the stored public key$/,
    ],
    [
      'packed/ES256 with a topOrigin added to a same-origin clientDataJSON',
      () => assertW3c(V.packedEs256, withClientData(assertionResponse(V.packedEs256), { topOrigin: 'https://evil.example' })),
      /^Unexpected top origin of "https:\/\/evil\.example" within a non-cross-origin authentication response\./,
    ],
    [
      'packed/ES256 with the RP id hash in authenticatorData changed',
      () => assertW3c(V.packedEs256, withAuthenticatorData(assertionResponse(V.packedEs256), rpIdHashFlipped)),
      /^Unexpected RP ID hash$/,
    ],
    [
      'packed/ES256 with the UP flag cleared',
      () => assertW3c(V.packedEs256, withAuthenticatorData(assertionResponse(V.packedEs256), flagCleared(FLAG_UP))),
      /^User not present during authentication$/,
    ],
    [
      'packed/ES256 with the UV flag cleared',
      () => assertW3c(V.packedEs256, withAuthenticatorData(assertionResponse(V.packedEs256), flagCleared(FLAG_UV))),
      USER_NOT_VERIFIED_AT_LOGIN,
    ],
    [
      'packed/ES256 with the UV flag cleared, where user verification is not required: the signature covers the flags',
      () => assertW3c(V.packedEs256, withAuthenticatorData(assertionResponse(V.packedEs256), flagCleared(FLAG_UV)), { requireUserVerification: false }),
      /^the signature does not verify with the stored public key$/,
    ],
  ];
  for (const [name, verify, reason] of assertionRefusals) {
    it(`refuses the assertion of ${name}`, async () => {
      assert.match(reasonOf(await verify()), reason);
    });
  }

  it('verifies a vector whose counter (0) is below the stored one, reporting the clone signal and keeping the stored counter', async () => {
    assert.deepEqual(await assertW3c(V.packedEs256, undefined, { signCount: 5 }), { verified: true, newSignCount: 5, cloneWarning: true, userVerified: true });
  });

  // W3C WebAuthn L3 §7.1 and §7.2: "If C.crossOrigin is present and set to true, verify that the
  // Relying Party expects this credential to be used within an iframe that is not same-origin with
  // its ancestors" (and likewise for C.topOrigin). Tessera never expects it. @simplewebauthn 14
  // checks crossOrigin only when topOrigin is present, and at registration not at all: these
  // verified until the verifiers read clientDataJSON themselves (issue 25).
  const CROSS_ORIGIN_IFRAME = /^the ceremony ran in a cross-origin iframe \(clientDataJSON\.crossOrigin is true\), which this service never expects$/;
  it('refuses a registration made in a cross-origin iframe ("crossOrigin": true)', async () => {
    assert.match(reasonOf(await registerW3c(V.noneEs256CrossOrigin)), CROSS_ORIGIN_IFRAME);
  });
  it('refuses a registration made in a cross-origin iframe under a top origin, where user verification is not required', async () => {
    assert.match(reasonOf(await registerW3c(V.noneEs256TopOrigin, undefined, { requireUserVerification: false })), CROSS_ORIGIN_IFRAME);
  });
  it('refuses an assertion made in a cross-origin iframe ("crossOrigin": true)', async () => {
    assert.match(reasonOf(await assertW3c(V.noneEs256CrossOrigin)), CROSS_ORIGIN_IFRAME);
  });
  it('refuses a "none" registration whose same-origin clientDataJSON gained a topOrigin (nothing signs it; the library does not look)', async () => {
    const edited = withClientData(registrationResponse(V.noneEs256), { topOrigin: 'https://evil.example' });
    assert.match(
      reasonOf(await registerW3c(V.noneEs256, edited, { requireUserVerification: false })),
      /^the ceremony ran in a cross-origin iframe under the top origin "https:\/\/evil\.example" \(clientDataJSON\.topOrigin\), which this service never expects$/,
    );
  });
});

describe('Responses recorded from real authenticators (@simplewebauthn/server test fixtures)', () => {
  const verifyRecorded = (recorded: RecordedRegistration, response: unknown = recorded.response) =>
    verifyRegistration({ response, expectedChallenge: recorded.challenge, rpId: recorded.rpId, origins: [recorded.origin] });

  for (const [name, recorded] of [
    ['Firefox on Android, "none", ES256', NONE_FIREFOX_ANDROID],
    ['"packed" self attestation, ES256, counter already 1589874425', PACKED_SELF],
    ['"none", RS256 of 2048 bits', NONE_RSA],
  ] as const) {
    it(`registers ${name} with user verification required, storing the attested credential`, async () => {
      const result = await verifyRecorded(recorded);
      assert.ok(result.verified, result.verified ? '' : result.reason);
      const { credentialId, publicKey, fmt, counter } = recorded.expected;
      assert.deepEqual(
        [result.params.webauthn_credential_id, result.params.public_key, result.params.attestation_type, result.params.authenticator.sign_count],
        [credentialId, Buffer.from(publicKey, 'base64url').toString('base64'), fmt, counter],
      );
      assert.equal(result.userVerified, true);
    });
  }

  it('stores the credential id the authenticator signed, not the one the response claims (the recording says "bbb")', async () => {
    const result = await verifyRecorded(PACKED_SELF);
    assert.ok(result.verified);
    assert.notEqual(PACKED_SELF.response.id, PACKED_SELF.expected.credentialId);
    assert.equal(result.params.webauthn_credential_id, PACKED_SELF.expected.credentialId);
  });

  const registrationRefusals: [string, () => Promise<RegistrationVerification>, RegExp][] = [
    [
      'the packed self attestation with a byte of its signature flipped',
      () => verifyRecorded(PACKED_SELF, withAttestation(PACKED_SELF.response, { sig: lastByteFlipped })),
      /^the attestation does not verify$/,
    ],
    [
      'the Firefox registration with clientDataJSON.origin changed',
      () => verifyRecorded(NONE_FIREFOX_ANDROID, withClientData(NONE_FIREFOX_ANDROID.response, { origin: 'https://evil.dontneeda.pw' })),
      /^Unexpected registration response origin "https:\/\/evil\.dontneeda\.pw", expected one of: https:\/\/dev\.dontneeda\.pw$/,
    ],
    [
      // "none" attestation signs nothing, so the challenge is what binds the answer to our ceremony.
      'the Firefox registration answering another challenge',
      () =>
        verifyRegistration({
          response: NONE_FIREFOX_ANDROID.response,
          expectedChallenge: OTHER_CHALLENGE,
          rpId: NONE_FIREFOX_ANDROID.rpId,
          origins: [NONE_FIREFOX_ANDROID.origin],
        }),
      new RegExp(`^Unexpected registration response challenge "${literally(NONE_FIREFOX_ANDROID.challenge)}", expected "${OTHER_CHALLENGE}"$`),
    ],
  ];
  for (const [name, verify, reason] of registrationRefusals) {
    it(`refuses ${name}`, async () => {
      assert.match(reasonOf(await verify()), reason);
    });
  }

  function verifyRecordedAssertion(
    recorded: RecordedAssertion,
    settings: { response?: unknown; storedCounter?: number; requireUserVerification?: boolean; challenge?: string } = {},
  ) {
    return verifyAssertion({
      response: settings.response ?? recorded.response,
      expectedChallenge: settings.challenge ?? recorded.challenge,
      rpId: recorded.rpId,
      origins: [recorded.origin],
      credential: {
        webauthn_credential_id: recorded.credential.id,
        public_key: Buffer.from(recorded.credential.publicKey, 'base64url').toString('base64'),
        authenticator: { aaguid: Buffer.alloc(16).toString('base64'), sign_count: settings.storedCounter ?? 0, clone_warning: false },
      },
      ...(settings.requireUserVerification === undefined ? {} : { requireUserVerification: settings.requireUserVerification }),
    });
  }

  it('verifies the recorded assertion with user verification and takes its counter', async () => {
    assert.deepEqual(await verifyRecordedAssertion(ASSERTION_WITH_UV, { storedCounter: 1_643_868_836 }), {
      verified: true,
      newSignCount: ASSERTION_WITH_UV.credential.reportedCounter,
      cloneWarning: false,
      userVerified: true,
    });
  });

  it('verifies the same assertion again, its counter no higher than the stored one, with the clone signal', async () => {
    const reported = ASSERTION_WITH_UV.credential.reportedCounter;
    assert.deepEqual(await verifyRecordedAssertion(ASSERTION_WITH_UV, { storedCounter: reported }), {
      verified: true,
      newSignCount: reported,
      cloneWarning: true,
      userVerified: true,
    });
  });

  const assertionRefusals: [string, () => Promise<AssertionVerification>, RegExp][] = [
    [
      'an assertion without user verification (UP only), which is required',
      () => verifyRecordedAssertion(ASSERTION_WITHOUT_UV, { storedCounter: 143 }),
      /^User verification required, but user could not be verified$/,
    ],
    [
      'the assertion with a signature byte flipped',
      () => verifyRecordedAssertion(ASSERTION_WITH_UV, { response: withSignatureFlipped(ASSERTION_WITH_UV.response) }),
      /^the signature does not verify with the stored public key$/,
    ],
    [
      'the assertion with clientDataJSON.origin changed',
      () => verifyRecordedAssertion(ASSERTION_WITH_UV, { response: withClientData(ASSERTION_WITH_UV.response, { origin: 'http://localhost:8001' }) }),
      /^Unexpected authentication response origin "http:\/\/localhost:8001", expected one of: http:\/\/localhost:8000$/,
    ],
    [
      'the assertion answering another challenge',
      () => verifyRecordedAssertion(ASSERTION_WITH_UV, { challenge: OTHER_CHALLENGE }),
      new RegExp(`^Unexpected authentication response challenge "${literally(ASSERTION_WITH_UV.challenge)}", expected "${OTHER_CHALLENGE}"$`),
    ],
  ];
  for (const [name, verify, reason] of assertionRefusals) {
    it(`refuses ${name}`, async () => {
      assert.match(reasonOf(await verify()), reason);
    });
  }

  it('verifies the assertion without user verification where it is not required, and flags a counter that did not increase', async () => {
    const { reportedCounter } = ASSERTION_WITHOUT_UV.credential;
    assert.deepEqual(await verifyRecordedAssertion(ASSERTION_WITHOUT_UV, { storedCounter: 143, requireUserVerification: false }), {
      verified: true,
      newSignCount: reportedCounter,
      cloneWarning: false,
      userVerified: false,
    });
    assert.deepEqual(await verifyRecordedAssertion(ASSERTION_WITHOUT_UV, { storedCounter: reportedCounter, requireUserVerification: false }), {
      verified: true,
      newSignCount: reportedCounter,
      cloneWarning: true,
      userVerified: false,
    });
  });
});
