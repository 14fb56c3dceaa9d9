import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import type { CredentialTypeContext } from '../../../src/credentials/credential-type.ts';
import { SOFTWARE_AAGUID, type SoftwareAlgorithm, SoftwareAuthenticator } from '../../../src/dev/software-authenticator.ts';
import { readStoredPublicKeyParams } from '../../../src/methods/passkey/format/stored-params.ts';
import { publicKeyCredentialType } from '../../../src/methods/passkey/type.ts';
import { verifyAssertion } from '../../../src/methods/passkey/verify-assertion.ts';
import { registrationOptions, verifyRegistration } from '../../../src/methods/passkey/verify-registration.ts';

const RP_ID = 'login.example.com';
const ORIGIN = 'https://login.example.com';
const context: CredentialTypeContext = {
  seal: () => assert.fail('seal is not used'),
  open: () => assert.fail('open is not used'),
  hashCode: () => assert.fail('hashCode is not used'),
};

const newChallenge = () => randomBytes(32).toString('base64url');

describe('Passkey registration options', () => {
  it('name the RP and the person, offer exactly the algorithms import accepts, and ask for no attestation', async () => {
    const challenge = randomBytes(32);
    const options = await registrationOptions({
      rpId: RP_ID,
      rpName: 'Example',
      userName: 'ada@example.com',
      userId: 'per_01jq3v5r8g2n4m6p8r0t2v4x6z',
      excludeCredentialIds: ['AAAAAAAAAAAAAAAAAAAAAA'],
      challenge,
    });
    assert.equal(options.challenge, challenge.toString('base64url'));
    assert.deepEqual(options.rp, { name: 'Example', id: RP_ID });
    assert.deepEqual(options.user, {
      id: Buffer.from('per_01jq3v5r8g2n4m6p8r0t2v4x6z').toString('base64url'),
      name: 'ada@example.com',
      displayName: 'ada@example.com',
    });
    assert.deepEqual(
      options.pubKeyCredParams.map((p) => p.alg),
      [-8, -7, -257],
    );
    assert.equal(options.attestation, 'none');
    assert.equal(options.authenticatorSelection?.userVerification, 'required');
    assert.deepEqual(
      options.excludeCredentials?.map((c) => c.id),
      ['AAAAAAAAAAAAAAAAAAAAAA'],
    );
    assert.equal(options.timeout, 300_000);
  });

  it('refuse a user id longer than WebAuthn allows (64 bytes)', async () => {
    await assert.rejects(registrationOptions({ rpId: RP_ID, rpName: 'Example', userName: 'a', userId: 'x'.repeat(65) }), /1 to 64 bytes/);
  });
});

describe('Passkey registration verification', () => {
  for (const algorithm of ['ES256', 'EdDSA', 'RS256'] as SoftwareAlgorithm[]) {
    it(`verifies a ${algorithm} registration into params that round-trip through prepare() and then log in`, async () => {
      const authenticator = new SoftwareAuthenticator({ algorithm });
      const challenge = newChallenge();
      const result = await verifyRegistration({
        response: authenticator.register({ challenge, rpId: RP_ID, origin: ORIGIN }),
        expectedChallenge: challenge,
        rpId: RP_ID,
        origins: [ORIGIN],
      });
      assert.ok(result.verified, result.verified ? '' : result.reason);
      assert.deepEqual(result.params, {
        webauthn_credential_id: authenticator.credentialId,
        public_key: Buffer.from(authenticator.cosePublicKey).toString('base64'),
        attestation_type: 'none',
        authenticator: { aaguid: Buffer.from(SOFTWARE_AAGUID).toString('base64'), sign_count: 0, clone_warning: false },
      });

      const prepared = await publicKeyCredentialType.prepare(result.params, context);
      assert.deepEqual(publicKeyCredentialType.present(prepared), result.params);

      const loginChallenge = newChallenge();
      const login = await verifyAssertion({
        response: authenticator.assert({ challenge: loginChallenge, rpId: RP_ID, origin: ORIGIN }),
        expectedChallenge: loginChallenge,
        rpId: RP_ID,
        origins: [ORIGIN],
        credential: readStoredPublicKeyParams(prepared.params),
      });
      assert.deepEqual(login, { verified: true, newSignCount: 1, cloneWarning: false, userVerified: true });
    });
  }

  // Each row names why the answer is refused, and the verifier's reason for it (what the service logs).
  const CHALLENGE = '"[A-Za-z0-9_-]{43}"';
  const refusals: [string, (a: SoftwareAuthenticator, challenge: string) => unknown, RegExp][] = [
    [
      'a wrong origin',
      (a, challenge) => a.register({ challenge, rpId: RP_ID, origin: 'https://login.example.net' }),
      /^Unexpected registration response origin "https:\/\/login\.example\.net", expected one of: https:\/\/login\.example\.com$/,
    ],
    [
      'a wrong RP id (its hash in authenticatorData)',
      (a, challenge) => a.register({ challenge, rpId: 'example.net', origin: ORIGIN }),
      /^Unexpected RP ID hash$/,
    ],
    [
      'a challenge other than the expected one',
      (a) => a.register({ challenge: newChallenge(), rpId: RP_ID, origin: ORIGIN }),
      new RegExp(`^Unexpected registration response challenge ${CHALLENGE}, expected ${CHALLENGE}$`),
    ],
    [
      'no user verification, which is required',
      (a, challenge) => a.register({ challenge, rpId: RP_ID, origin: ORIGIN, userVerified: false }),
      /^User verification was required, but user could not be verified$/,
    ],
    [
      'an assertion instead of an attestation (clientDataJSON.type webauthn.get)',
      (a, challenge) => a.assert({ challenge, rpId: RP_ID, origin: ORIGIN }),
      /^Unexpected registration response type: webauthn\.get$/,
    ],
    // The library reads the response's id before any check of its own: its TypeError is the reason.
    ['no response at all', () => null, /^Cannot destructure property 'id' of 'response' as it is null\.$/],
  ];
  for (const [name, makeResponse, reason] of refusals) {
    it(`refuses ${name}`, async () => {
      const challenge = newChallenge();
      const result = await verifyRegistration({
        response: makeResponse(new SoftwareAuthenticator(), challenge),
        expectedChallenge: challenge,
        rpId: RP_ID,
        origins: [ORIGIN],
      });
      assert.equal(result.verified, false);
      assert.match(result.verified ? '' : result.reason, reason);
    });
  }

  it('refuses an authenticator whose key import would refuse (RSA of 1024 bits)', async () => {
    const authenticator = new SoftwareAuthenticator({ algorithm: 'RS256', rsaBits: 1024 });
    const challenge = newChallenge();
    const result = await verifyRegistration({
      response: authenticator.register({ challenge, rpId: RP_ID, origin: ORIGIN }),
      expectedChallenge: challenge,
      rpId: RP_ID,
      origins: [ORIGIN],
    });
    assert.equal(result.verified, false);
    assert.match(result.verified ? '' : result.reason, /not one this service accepts: body\.params\.public_key: .*not 1024/);
  });
});
