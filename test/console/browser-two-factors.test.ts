import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'puppeteer-core';
import { RECENT_SIGN_IN_MS } from '../../src/authn/assurance.ts';
import { backends } from '../helpers/backends.ts';
import { addVirtualAuthenticator, axeScan, formatViolations, launchBrowser, screenshot, waitForText } from '../helpers/browser.ts';
import { type ConsolePerson, consolePerson } from '../helpers/console.ts';
import { startFrozenService, type TestClock } from '../helpers/frozen-service.ts';
import type { TestOrg, TestService } from '../helpers/service.ts';

const FROZEN = Date.UTC(2031, 4, 6, 7, 8, 0);

/**
 * Design §5's console in a real Chromium, on a service whose clock the test moves: a new
 * administrator with a password only is made to add a passkey before anything else, then signs in
 * with two factors, and a sensitive action ten minutes later asks who they are again. The steps
 * run in order in one tab; one backend is enough (the HTTP-level tests run on both).
 */
describe('Two factors in the console, in a real browser', () => {
  const clock: TestClock = { at: FROZEN };
  let t: TestService;
  let org: TestOrg;
  let orgName: string;
  let admin: ConsolePerson;
  let browser: Browser;
  let page: Page;
  let base: string;

  const heading = () => page.$eval('h1', (e) => e.textContent);
  const submit = async (selector: string) => void (await Promise.all([page.waitForNavigation(), page.click(selector)]));
  const value = (selector: string) => page.$eval(selector, (input) => (input as unknown as { value: string }).value);
  async function accessible(name: string): Promise<void> {
    const violations = await axeScan(page);
    assert.deepEqual(violations, [], `${name} (${page.url()}): ${formatViolations(violations)}`);
  }

  before(async () => {
    t = await startFrozenService(backends()[0]!, clock);
    org = await t.org();
    orgName = (await t.service.store.getOrganization(org.orgId))!.name;
    base = t.url.replace('127.0.0.1', 'localhost');
    const config = await t.call('PATCH', '/organizations/config', { as: org, body: { webauthn_rp_id: 'localhost', webauthn_origins: [base] } });
    assert.equal(config.status, 200, JSON.stringify(config.body));
    admin = await consolePerson(t, org, { roles: ['admin', 'verifier'], secondFactor: false });
    browser = await launchBrowser();
    page = await browser.newPage();
    await page.setViewport({ width: 1100, height: 900 });
    await addVirtualAuthenticator(page);
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  it('opens the sign-in at localhost when it was asked for at 127.0.0.1, where passkeys cannot work', async () => {
    await page.goto(`${t.url}/console/sign-in?org=${encodeURIComponent(orgName)}`);
    assert.equal(new URL(page.url()).origin, base);
    assert.equal(await value('#organization'), orgName);
  });

  it('makes a password-only administrator add a passkey before any other page', async () => {
    await page.type('#email', admin.email);
    await page.type('#password', admin.password);
    await submit('#sign-in button[type=submit]');
    assert.equal(await heading(), 'Add a second factor');
    await page.goto(`${base}/console/admin`);
    assert.equal(await heading(), 'Add a second factor', 'administration waits');
    await page.type('#passkey-register input[name=label]', 'This laptop');
    await submit('#passkey-register button[type=submit]');
    assert.equal(await heading(), 'My security');
    await waitForText(page, 'Passkey added');
    await page.goto(`${base}/console/admin`);
    assert.equal(await heading(), 'Administration');
  });

  it('signs out keeping the organisation, and signs in with two factors: the password, then the passkey', async () => {
    await submit('header form[action="/console/sign-out"] button');
    await waitForText(page, 'You are signed out.');
    assert.equal(await value('#organization'), orgName, 'no need to type it again');
    await page.type('#email', admin.email);
    await page.type('#password', admin.password);
    await submit('#sign-in button[type=submit]');
    assert.equal(await heading(), 'Confirm with your passkey');
    await accessible('sign-in: passkey as the second factor');
    await submit('button[data-passkey-login]');
    assert.equal(new URL(page.url()).pathname, '/console/verify');
  });

  it('asks for the passkey again before making an API key once the sign-in is ten minutes old', async () => {
    clock.at += RECENT_SIGN_IN_MS + 60_000;
    const keys = async () => (await t.call('GET', '/organizations/api-keys', { as: org })).body.result.length;
    const before = await keys();
    await page.goto(`${base}/console/admin/api-keys`);
    await page.type('#key-name', 'crm');
    await submit('form[action="/console/admin/api-keys"] button[type=submit]');
    assert.equal(await heading(), 'Confirm it is you');
    assert.equal(await keys(), before, 'nothing made yet');
    await accessible('confirm it is you');
    if (process.env.CONSOLE_SCREENSHOTS === '1') await screenshot(page, 'confirm.png');
    await submit('button[data-passkey-login]');
    assert.equal(new URL(page.url()).pathname, '/console/admin/api-keys');
    await waitForText(page, 'Confirmed: for the next 10 minutes');
    await page.type('#key-name', 'crm');
    await submit('form[action="/console/admin/api-keys"] button[type=submit]');
    assert.equal(await keys(), before + 1, 'made once confirmed');
  });
});
