import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { addVirtualAuthenticator, launchBrowser } from './browser.ts';
import { findChromium } from './chromium.ts';

// Which browser the browser tests get: the fallback to the npm package's Chromium is what lets
// `npm test` run on a machine with only Node and npm, so it is proved here on every machine, not
// only on one without a browser.

const NOWHERE = ['/nonexistent/chromium', '/nonexistent/Google Chrome.app/Contents/MacOS/Google Chrome'];
const linuxX64 = process.platform === 'linux' && process.arch === 'x64';

describe('findChromium', () => {
  it('takes CHROMIUM_PATH when set, and refuses one that is not an executable', () => {
    assert.deepEqual(findChromium({ env: { CHROMIUM_PATH: process.execPath }, candidates: NOWHERE }), {
      executablePath: process.execPath,
      from: 'CHROMIUM_PATH',
      env: {},
    });
    assert.throws(() => findChromium({ env: { CHROMIUM_PATH: '/nonexistent/chrome' } }), /CHROMIUM_PATH=\/nonexistent\/chrome is not an executable/);
  });

  it("prefers the machine's browser, the first known path that is there", () => {
    const choice = findChromium({ env: {}, candidates: [...NOWHERE, process.execPath] });
    assert.equal(choice.from, 'machine');
    assert.equal(choice.executablePath, process.execPath);
  });

  it('without one on macOS (or Linux arm64) says what to install', () => {
    for (const [platform, arch] of [
      ['darwin', 'arm64'],
      ['linux', 'arm64'],
    ] as const) {
      assert.throws(
        () => findChromium({ env: {}, candidates: NOWHERE, platform, arch }),
        (error: Error) => error.message.includes(NOWHERE[1] as string) && /install Chromium or Chrome, or set CHROMIUM_PATH/.test(error.message),
      );
    }
  });

  it("without one on Linux x64 falls back to @sparticuz/chromium, which runs the console's virtual passkey", async () => {
    if (!linuxX64) {
      // The package ships only a Linux x64 build; other hosts get the error above.
      assert.throws(() => findChromium({ env: {}, candidates: NOWHERE }), /only ships one for Linux x64/);
      return;
    }
    const choice = findChromium({ env: {}, candidates: NOWHERE });
    assert.equal(choice.from, 'npm');
    assert.ok(existsSync(choice.executablePath), choice.executablePath);
    assert.match(choice.executablePath, /node_modules\/\.cache\/tessera-chromium\//);
    // A second lookup reuses the unpacked copy.
    assert.equal(findChromium({ env: {}, candidates: NOWHERE }).executablePath, choice.executablePath);

    const server = createServer((_, response) => response.end('<!doctype html><title>Fallback</title>')).listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const browser = await launchBrowser(choice);
    try {
      assert.match(await browser.version(), /HeadlessChrome\/\d+/);
      const page = await browser.newPage();
      await page.goto(`http://localhost:${(server.address() as AddressInfo).port}/`);
      const authenticator = await addVirtualAuthenticator(page);
      const id = await page.evaluate(async () => {
        const credential = await (globalThis as any).navigator.credentials.create({
          publicKey: {
            challenge: new Uint8Array(32),
            rp: { id: 'localhost', name: 'Fallback' },
            user: { id: new Uint8Array([1]), name: 'ada@example.com', displayName: 'Ada' },
            pubKeyCredParams: [{ type: 'public-key', alg: -7 }],
            authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
          },
        });
        return credential.id as string;
      });
      assert.deepEqual(
        (await authenticator.credentials()).map((c) => [c.credentialId, c.isResidentKey]),
        [[id, true]],
      );
    } finally {
      await browser.close();
      server.close();
    }
  });
});
