import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { type SoftwareAlgorithm, SoftwareAuthenticator } from '../../../src/dev/software-authenticator.ts';
import { assertionOptions, isCloneSignal, verifyAssertion } from '../../../src/methods/passkey/verify-assertion.ts';

const RP_ID = 'login.example.com';
const ORIGIN = 'https://login.example.com';
const ORIGINS = [ORIGIN, 'https://app.example.com'];

function storedCredential(authenticator: SoftwareAuthenticator, signCount = 0) {
  return {
    webauthn_credential_id: authenticator.credentialId,
    public_key: Buffer.from(authenticator.cosePublicKey).toString('base64'),
    authenticator: { aaguid: Buffer.from(authenticator.aaguid).toString('base64'), sign_count: signCount, clone_warning: false },
  };
}

const newChallenge = () => randomBytes(32).toString('base64url');

describe('Passkey assertion options', () => {
  it('offer the given credentials on the RP id, require user verification, and live five minutes', async () => {
    const challenge = randomBytes(32);
    const options = await assertionOptions({ rpId: RP_ID, allowCredentialIds: ['AAAAAAAAAAAAAAAAAAAAAA'], challenge });
    assert.equal(options.challenge, challenge.toString('base64url'));
    assert.equal(options.rpId, RP_ID);
    assert.deepEqual(
      options.allowCredentials?.map((c) => [c.id, c.type]),
      [['AAAAAAAAAAAAAAAAAAAAAA', 'public-key']],
    );
    assert.equal(options.userVerification, 'required');
    assert.equal(options.timeout, 300_000);
  });

  it('make a fresh random challenge of 32 bytes each time', async () => {
    const [a, b] = await Promise.all([assertionOptions({ rpId: RP_ID }), assertionOptions({ rpId: RP_ID })]);
    assert.equal(Buffer.from(a.challenge, 'base64url').length, 32);
    assert.notEqual(a.challenge, b.challenge);
  });
});

describe('Passkey assertion verification', () => {
  for (const algorithm of ['ES256', 'EdDSA', 'RS256'] as SoftwareAlgorithm[]) {
    it(`verifies a software authenticator's ${algorithm} assertion and reports the new counter`, async () => {
      const authenticator = new SoftwareAuthenticator({ algorithm });
      const challenge = newChallenge();
      const response = authenticator.assert({ challenge, rpId: RP_ID, origin: ORIGIN });
      const result = await verifyAssertion({
        response,
        expectedChallenge: challenge,
        rpId: RP_ID,
        origins: ORIGINS,
        credential: storedCredential(authenticator),
      });
      assert.deepEqual(result, { verified: true, newSignCount: 1, cloneWarning: false, userVerified: true });
    });
  }

  it('accepts any of the configured origins', async () => {
    const authenticator = new SoftwareAuthenticator();
    const challenge = newChallenge();
    const response = authenticator.assert({ challenge, rpId: RP_ID, origin: 'https://app.example.com' });
    const result = await verifyAssertion({
      response,
      expectedChallenge: challenge,
      rpId: RP_ID,
      origins: ORIGINS,
      credential: storedCredential(authenticator),
    });
    assert.equal(result.verified, true);
  });

  // Each row names why the answer is refused, and the verifier's reason for it (what the service logs).
  const CHALLENGE = '"[A-Za-z0-9_-]{43}"';
  const NOT_ASKED_FOR = /^the response is not from the credential that was asked for$/;
  const refusals: [string, (a: SoftwareAuthenticator, challenge: string) => unknown, RegExp][] = [
    [
      'a wrong origin',
      (a, challenge) => a.assert({ challenge, rpId: RP_ID, origin: 'https://login.example.net' }),
      /^Unexpected authentication response origin "https:\/\/login\.example\.net", expected one of: https:\/\/login\.example\.com, https:\/\/app\.example\.com$/,
    ],
    [
      'a wrong RP id (its hash in authenticatorData)',
      (a, challenge) => a.assert({ challenge, rpId: 'example.net', origin: ORIGIN }),
      /^Unexpected RP ID hash$/,
    ],
    [
      'a challenge other than the expected one',
      (a) => a.assert({ challenge: newChallenge(), rpId: RP_ID, origin: ORIGIN }),
      new RegExp(`^Unexpected authentication response challenge ${CHALLENGE}, expected ${CHALLENGE}$`),
    ],
    [
      'a tampered signature (a byte inside it flipped)',
      (a, challenge) => a.assert({ challenge, rpId: RP_ID, origin: ORIGIN, tamperSignature: true }),
      /^the signature does not verify with the stored public key$/,
    ],
    [
      'a registration ceremony (clientDataJSON.type webauthn.create)',
      (a, challenge) => a.assert({ challenge, rpId: RP_ID, origin: ORIGIN, type: 'webauthn.create' }),
      /^Unexpected authentication response type: webauthn\.create$/,
    ],
    [
      'no user verification, which is required',
      (a, challenge) => a.assert({ challenge, rpId: RP_ID, origin: ORIGIN, userVerified: false }),
      /^User verification required, but user could not be verified$/,
    ],
    ['another credential', (_a, challenge) => new SoftwareAuthenticator().assert({ challenge, rpId: RP_ID, origin: ORIGIN }), NOT_ASKED_FOR],
    ['no response at all', () => null, NOT_ASKED_FOR],
    ['a response that is not an object', () => 'public-key', NOT_ASKED_FOR],
    // Not the JSON of a PublicKeyCredential: the library's checks of its shape, in its words.
    ['a response without rawId (id and rawId must be the one base64url)', (a) => ({ id: a.credentialId }), /^Credential ID was not base64url-encoded$/],
    [
      'a credential of another type than public-key',
      (a, challenge) => ({ ...a.assert({ challenge, rpId: RP_ID, origin: ORIGIN }), type: 'password' }),
      /^Unexpected credential type password, expected "public-key"$/,
    ],
    [
      'a response without its response member (no client data)',
      (a) => ({ id: a.credentialId, rawId: a.credentialId, type: 'public-key' }),
      /^Credential response clientDataJSON was not a string$/,
    ],
  ];
  for (const [name, makeResponse, reason] of refusals) {
    it(`refuses ${name}`, async () => {
      const authenticator = new SoftwareAuthenticator();
      const challenge = newChallenge();
      const response = makeResponse(authenticator, challenge);
      const result = await verifyAssertion({
        response,
        expectedChallenge: challenge,
        rpId: RP_ID,
        origins: ORIGINS,
        credential: storedCredential(authenticator),
      });
      assert.equal(result.verified, false);
      assert.match(result.verified ? '' : result.reason, reason);
    });
  }

  it('refuses a replayed answer: the one that logged in once does not answer the next challenge', async () => {
    const authenticator = new SoftwareAuthenticator();
    const first = newChallenge();
    const response = authenticator.assert({ challenge: first, rpId: RP_ID, origin: ORIGIN });
    const credential = storedCredential(authenticator);
    assert.equal((await verifyAssertion({ response, expectedChallenge: first, rpId: RP_ID, origins: ORIGINS, credential })).verified, true);
    const next = newChallenge();
    const replay = await verifyAssertion({ response, expectedChallenge: next, rpId: RP_ID, origins: ORIGINS, credential });
    assert.deepEqual(replay, { verified: false, reason: `Unexpected authentication response challenge "${first}", expected "${next}"` });
  });

  it('accepts no user verification when the caller does not require it', async () => {
    const authenticator = new SoftwareAuthenticator();
    const challenge = newChallenge();
    const response = authenticator.assert({ challenge, rpId: RP_ID, origin: ORIGIN, userVerified: false });
    const result = await verifyAssertion({
      response,
      expectedChallenge: challenge,
      rpId: RP_ID,
      origins: ORIGINS,
      credential: storedCredential(authenticator),
      requireUserVerification: false,
    });
    assert.deepEqual(result, { verified: true, newSignCount: 1, cloneWarning: false, userVerified: false });
  });

  it('verifies a lower counter but reports a clone warning and keeps the stored counter', async () => {
    const authenticator = new SoftwareAuthenticator({ signCount: 10 });
    const challenge = newChallenge();
    const response = authenticator.assert({ challenge, rpId: RP_ID, origin: ORIGIN, signCount: 5 });
    const result = await verifyAssertion({
      response,
      expectedChallenge: challenge,
      rpId: RP_ID,
      origins: ORIGINS,
      credential: storedCredential(authenticator, 10),
    });
    assert.deepEqual(result, { verified: true, newSignCount: 10, cloneWarning: true, userVerified: true });
  });

  it('reports a clone warning for an unchanged counter, and none for an increase', async () => {
    const authenticator = new SoftwareAuthenticator({ signCount: 6 });
    for (const [reported, warning] of [
      [7, false],
      [7, true],
    ] as const) {
      const challenge = newChallenge();
      const response = authenticator.assert({ challenge, rpId: RP_ID, origin: ORIGIN, signCount: reported });
      const result = await verifyAssertion({
        response,
        expectedChallenge: challenge,
        rpId: RP_ID,
        origins: ORIGINS,
        credential: storedCredential(authenticator, 6 + Number(warning)),
      });
      assert.ok(result.verified);
      assert.equal(result.cloneWarning, warning);
      assert.equal(result.newSignCount, 7);
    }
  });

  it('allows an authenticator that does not count (both counters zero), again and again', async () => {
    const authenticator = new SoftwareAuthenticator({ counts: false });
    for (let i = 0; i < 2; i++) {
      const challenge = newChallenge();
      const response = authenticator.assert({ challenge, rpId: RP_ID, origin: ORIGIN });
      const result = await verifyAssertion({
        response,
        expectedChallenge: challenge,
        rpId: RP_ID,
        origins: ORIGINS,
        credential: storedCredential(authenticator, 0),
      });
      assert.deepEqual(result, { verified: true, newSignCount: 0, cloneWarning: false, userVerified: true });
    }
  });

  it('throws when no origins are configured: a configuration fault, not a failed login', async () => {
    const authenticator = new SoftwareAuthenticator();
    const challenge = newChallenge();
    const response = authenticator.assert({ challenge, rpId: RP_ID, origin: ORIGIN });
    await assert.rejects(
      verifyAssertion({ response, expectedChallenge: challenge, rpId: RP_ID, origins: [], credential: storedCredential(authenticator) }),
      /no WebAuthn origins/,
    );
  });
});

describe('The clone signal (W3C WebAuthn §7.2 step 22)', () => {
  it('is raised when either counter is non-zero and the reported one does not exceed the stored one', () => {
    const cases: [number, number, boolean][] = [
      [0, 0, false],
      [0, 1, false],
      [4, 5, false],
      [5, 5, true],
      [5, 4, true],
      [5, 0, true],
    ];
    for (const [stored, reported, expected] of cases) assert.equal(isCloneSignal(stored, reported), expected, `stored ${stored}, reported ${reported}`);
  });
});
