import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Secret, TOTP } from 'otpauth';
import type { Browser, Page } from 'puppeteer-core';
import { type AdminCli, startAdminCli } from '../helpers/admin-cli.ts';
import { backends } from '../helpers/backends.ts';
import { launchBrowser } from '../helpers/browser.ts';

/**
 * Issue 27's "done when", from the command line: the operator creates a verifier and an invitation
 * with `tessera admin`, and the link it prints, opened in a real Chromium, gives the verifier a
 * password, makes them add an authenticator app, and signs them in. No hash made by hand.
 */
describe('A verifier onboarded from the CLI, in a real browser', () => {
  let cli: AdminCli;
  let browser: Browser;
  let page: Page;
  const heading = () => page.$eval('h1', (e) => e.textContent);
  const submit = async (selector: string) => void (await Promise.all([page.waitForNavigation(), page.click(selector)]));

  before(async () => {
    cli = await startAdminCli(backends()[0]!);
    browser = await launchBrowser();
    page = await browser.newPage();
  });
  after(async () => {
    await browser?.close();
    await cli?.close();
  });

  it('create-person, invite-person, then the printed link in a browser ends on the verify page', async () => {
    const created = await cli.admin(['create-person', '--org', 'Acme', '--email', 'vic@example.com', '--role', 'verifier', '--console']);
    assert.equal(created.code, 0, created.stderr);
    const invited = await cli.admin(['invite-person', '--org', 'Acme', '--person', 'vic@example.com', '--json'], { TESSERA_ISSUER: cli.t.url });
    assert.equal(invited.code, 0, invited.stderr);
    await page.goto(JSON.parse(invited.stdout).url);
    assert.equal(await heading(), 'Choose your password');
    await page.type('#password', 'a kite above the dunes');
    await page.type('#password-again', 'a kite above the dunes');
    await submit('form[action="/console/invitation"] button[type=submit]');
    assert.equal(await heading(), 'Add a second factor');
    await submit('form[action="/console/security/totp"] button[type=submit]');
    const secret = (await page.$eval('#totp-secret', (e) => e.textContent ?? '')).replace(/\s/g, '');
    await page.type('#code', new TOTP({ secret: Secret.fromBase32(secret) }).generate());
    await submit('form[action="/console/security/totp/confirm"] button[type=submit]');
    await page.goto(`${cli.t.url}/console/verify`);
    assert.equal(await heading(), 'Verify a caller');
  });
});
