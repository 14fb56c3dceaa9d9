import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
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
