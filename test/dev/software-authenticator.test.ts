import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createPrivateKey } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { verifyAuthenticationResponse } from '@simplewebauthn/server';
import { isoCBOR } from '@simplewebauthn/server/helpers';
import { type SoftwareAlgorithm, SoftwareAuthenticator } from '../../src/dev/software-authenticator.ts';
import { verifyAssertion } from '../../src/methods/passkey/verify-assertion.ts';
import { runCli } from '../helpers/cli.ts';
import {
  attestedCredential,
  challengeOf,
  importParams,
  W3C_ORIGIN,
  W3C_RP_ID,
  W3C_TEST_VECTORS,
  type W3cTestVector,
} from '../methods/passkey/fixtures/w3c-test-vectors.ts';

const ceremony = { challenge: 'Y2hhbGxlbmdlLW9mLXRoaXMtdGVzdA', rpId: 'example.com', origin: 'https://login.example.com' };

describe('The software passkey, saved and restored (tessera dev passkey)', () => {
  it('signs with the same key after a restore, and its counter carries on', async () => {
    const first = new SoftwareAuthenticator();
    first.register({ ...ceremony, userId: 'cGVyXzE' });
    first.assert(ceremony);
    const restored = SoftwareAuthenticator.restore(JSON.parse(JSON.stringify(first.save())));
    assert.equal(restored.credentialId, first.credentialId);
    assert.equal(restored.userHandle, 'cGVyXzE');
    const response = restored.assert(ceremony);
    const verified = await verifyAuthenticationResponse({
      response,
      expectedChallenge: ceremony.challenge,
      expectedOrigin: ceremony.origin,
      expectedRPID: ceremony.rpId,
      credential: { id: first.credentialId, publicKey: new Uint8Array(first.cosePublicKey), counter: 1 },
    });
    assert.equal(verified.verified, true);
    assert.equal(verified.authenticationInfo.newCounter, 2);
  });

  it('refuses wrong usage with exit status 2 and a pointer to --help', async () => {
    for (const args of [
      ['dev', 'passkey', 'frob'],
      ['dev', 'passkey', 'sign', '--origin', 'https://a.example'],
    ]) {
      const result = await runCli(args);
      assert.equal(result.code, 2, result.stderr);
      assert.match(result.stderr, /tessera dev passkey --help/);
    }
  });

  it("regression: register kept an existing key file's mode and replaced its passkey; now it refuses, and the file it writes is 0600", async () => {
    const directory = mkdtempSync(join(tmpdir(), 'passkey-'));
    try {
      const key = join(directory, 'key.json');
      writeFileSync(key, 'something else', { mode: 0o644 });
      const refused = await runCliWithInput(['dev', 'passkey', 'register', '--key', key, '--origin', ceremony.origin], creationOptions);
      assert.equal(refused.code, 2, refused.stderr);
      assert.match(refused.stderr, /already exists/);
      assert.equal(readFileSync(key, 'utf8'), 'something else');
      const fresh = join(directory, 'fresh.json');
      const made = await runCliWithInput(['dev', 'passkey', 'register', '--key', fresh, '--origin', ceremony.origin], creationOptions);
      assert.equal(made.code, 0, made.stderr);
      assert.equal(JSON.parse(made.stdout).type, 'public-key');
      assert.equal(statSync(fresh).mode & 0o777, 0o600);
      const signed = await runCliWithInput(
        ['dev', 'passkey', 'sign', '--key', fresh, '--origin', ceremony.origin],
        JSON.stringify({ challenge: ceremony.challenge, rpId: ceremony.rpId }),
      );
      assert.equal(signed.code, 0, signed.stderr);
      assert.equal(statSync(fresh).mode & 0o777, 0o600, 'still private after the counter is written back');
      assert.deepEqual(readdirSync(directory).sort(), ['fresh.json', 'key.json'], 'no temporary file left');
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });
});

/**
 * The software passkey holding a W3C test vector's credential key (WebAuthn L3 §16), so what it
 * builds can be compared with bytes the specification published: it counts nothing, as the
 * vectors' authenticators do not, and carries no user handle, as their assertions do not.
 */
function vectorAuthenticator(vector: W3cTestVector, algorithm: SoftwareAlgorithm): SoftwareAuthenticator {
  const seed = Buffer.from(vector.credentialPrivateKey!, 'hex');
  const key = attestedCredential(vector).cosePublicKey;
  const cose = isoCBOR.decodeFirst<Map<number, Uint8Array>>(new Uint8Array(key));
  const jwk =
    algorithm === 'EdDSA'
      ? { kty: 'OKP', crv: 'Ed25519', d: seed.toString('base64url'), x: Buffer.from(cose.get(-2)!).toString('base64url') }
      : {
          kty: 'EC',
          crv: 'P-256',
          d: seed.toString('base64url'),
          x: Buffer.from(cose.get(-2)!).toString('base64url'),
          y: Buffer.from(cose.get(-3)!).toString('base64url'),
        };
  return SoftwareAuthenticator.restore({
    algorithm,
    aaguid: vector.registration.aaguid,
    credentialId: challengeOf(vector.registration.credentialId),
    privateKeyPem: createPrivateKey({ key: jwk, format: 'jwk' }).export({ type: 'pkcs8', format: 'pem' }).toString(),
    userHandle: null,
    signCount: 0,
    counts: false,
  });
}

describe('The software passkey against the W3C WebAuthn test vectors', () => {
  const eddsa = W3C_TEST_VECTORS.packedEdDsa;

  it("signs the Ed25519 vector's authentication byte for byte: authenticatorData, clientDataJSON and the (deterministic) signature", () => {
    const authenticator = vectorAuthenticator(eddsa, 'EdDSA');
    const response = authenticator.assert({ challenge: challengeOf(eddsa.authentication.challenge), rpId: W3C_RP_ID, origin: W3C_ORIGIN, userVerified: false });
    const hex = (base64url: string) => Buffer.from(base64url, 'base64url').toString('hex');
    assert.deepEqual(
      {
        authenticatorData: hex(response.response.authenticatorData),
        clientDataJSON: hex(response.response.clientDataJSON),
        signature: hex(response.response.signature),
      },
      {
        authenticatorData: eddsa.authentication.authenticatorData,
        clientDataJSON: eddsa.authentication.clientDataJSON,
        signature: eddsa.authentication.signature,
      },
      'the vector has no extraData in this clientDataJSON, so all three must match',
    );
    assert.equal(response.response.userHandle, undefined);
  });

  it("registers with the Ed25519 vector's authenticator data byte for byte: RP id hash, flags, counter, AAGUID, credential id and COSE key", () => {
    const authenticator = vectorAuthenticator(eddsa, 'EdDSA');
    const response = authenticator.register({ challenge: challengeOf(eddsa.registration.challenge), rpId: W3C_RP_ID, origin: W3C_ORIGIN, userVerified: false });
    const authDataOf = (base64url: string) => Buffer.from(isoCBOR.decodeFirst<Map<string, Uint8Array>>(Buffer.from(base64url, 'base64url')).get('authData')!);
    // The formats differ ("none" here, "packed" in the vector); what the authenticator attests does not.
    assert.equal(
      authDataOf(response.response.attestationObject).toString('hex'),
      authDataOf(Buffer.from(eddsa.registration.attestationObject, 'hex').toString('base64url')).toString('hex'),
    );
  });

  it("encodes the ES256 vector's COSE key exactly, and its assertions verify against the key as the vector attests it", async () => {
    const vector = W3C_TEST_VECTORS.noneEs256;
    const authenticator = vectorAuthenticator(vector, 'ES256');
    assert.equal(Buffer.from(authenticator.cosePublicKey).toString('hex'), attestedCredential(vector).cosePublicKey.toString('hex'));
    const challenge = challengeOf(vector.authentication.challenge);
    const stored = importParams(vector);
    const result = await verifyAssertion({
      response: authenticator.assert({ challenge, rpId: W3C_RP_ID, origin: W3C_ORIGIN }),
      expectedChallenge: challenge,
      rpId: W3C_RP_ID,
      origins: [W3C_ORIGIN],
      credential: { ...stored, authenticator: { ...stored.authenticator, clone_warning: false } },
    });
    assert.deepEqual(result, { verified: true, newSignCount: 0, cloneWarning: false, userVerified: true });
  });
});

const creationOptions = JSON.stringify({ challenge: ceremony.challenge, rp: { id: ceremony.rpId, name: 'Example' }, user: { id: 'cGVyXzE', name: 'lin' } });

/** bin/tessera with `input` on standard input. */
function runCliWithInput(args: string[], input: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const launcher = fileURLToPath(new URL('../../bin/tessera', import.meta.url));
  return new Promise((resolve, reject) => {
    const child = spawn(launcher, args, { env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input);
  });
}
