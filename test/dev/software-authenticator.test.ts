import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { verifyAuthenticationResponse } from '@simplewebauthn/server';
import { SoftwareAuthenticator } from '../../src/dev/software-authenticator.ts';
import { runCli } from '../helpers/cli.ts';

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
});
