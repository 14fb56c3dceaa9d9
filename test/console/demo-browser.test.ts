import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'puppeteer-core';
import { addVirtualAuthenticator, launchBrowser } from '../helpers/browser.ts';
import { exited, spawnCli, waitForOutput } from '../helpers/cli.ts';

/**
 * The README's promise, in a real browser: after `npm start`, a new user opens the console URL
 * it printed, signs in with the password it printed, is asked to add a passkey (ada is an
 * administrator), adds one, signs out and signs in with it alone.
 */
describe('The demo console, as the README tells a new user to use it', () => {
  let dir: string;
  let demo: ReturnType<typeof spawnCli>;
  let browser: Browser;
  let page: Page;
  let url: string;
  let password: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tessera-console-demo-'));
    demo = spawnCli(['demo'], { TESSERA_DATA_DIR: dir, HOME: dir, TMPDIR: dir, TESSERA_PORT: '0', GATEWAY_PORT: '0', GATEWAY_ADMIN_PORT: '0' });
    const banner = await waitForOutput(demo, 'Press Ctrl+C', 30_000);
    url = /^ {2}(http:\/\/localhost:\d+\/console\/sign-in\?org=demo)$/m.exec(banner)?.[1] ?? assert.fail(`no console URL in:\n${banner}`);
    password = /email ada@example\.com +password (\S+)/.exec(banner)?.[1] ?? assert.fail(`no console password in:\n${banner}`);
    browser = await launchBrowser();
    page = await browser.newPage();
    await addVirtualAuthenticator(page);
  });
  after(async () => {
    await browser?.close();
    if (demo?.exitCode === null) {
      demo.kill('SIGTERM');
      await exited(demo);
    }
    rmSync(dir, { recursive: true, force: true });
  });

  const submit = async (selector: string) => void (await Promise.all([page.waitForNavigation(), page.click(selector)]));
  const heading = () => page.$eval('h1', (e) => e.textContent);

  it('signs ada in with the printed password, is asked for a passkey first, adds one, and signs in again with it alone', async () => {
    await page.goto(url);
    await page.type('#email', 'ada@example.com');
    await page.type('#password', password);
    await submit('#sign-in button[type=submit]');
    // ada is an administrator and a verifier: two factors before anything else (design §5).
    assert.equal(await heading(), 'Add a second factor');
    await page.goto(new URL('/console/verify', url).href);
    assert.equal(await heading(), 'Add a second factor', 'no other page opens first');

    await page.type('#passkey-register input[name=label]', 'My laptop');
    await submit('#passkey-register button[type=submit]');
    assert.equal(await heading(), 'My security');
    await submit('header form[action="/console/sign-out"] button');
    assert.equal(await heading(), 'Sign in');
    assert.equal(await page.$eval('#organization', (input) => (input as unknown as { value: string }).value), 'demo', 'the organisation is kept');

    await submit('#passkey-sign-in');
    assert.equal(await heading(), 'Verify a caller');
  });
});
