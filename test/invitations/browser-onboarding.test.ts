import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Secret, TOTP } from 'otpauth';
import type { Browser, Page } from 'puppeteer-core';
import { backends } from '../helpers/backends.ts';
import { axeScan, formatViolations, launchBrowser } from '../helpers/browser.ts';
import { type ConsolePerson, consolePerson } from '../helpers/console.ts';
import { startTestService, type TestOrg, type TestService } from '../helpers/service.ts';
import { type SmtpListener, startSmtpListener } from '../helpers/smtp.ts';

/**
 * Issue 27's "done when", in a real Chromium: an administrator creates a verifier in the console
 * and emails them an invitation; the link, read from a real SMTP listener, opens in another
 * browser, where the verifier chooses a password, is kept to adding a second factor (an
 * authenticator app, its code computed from the key the page shows), and lands signed in.
 * No hash is made by hand anywhere. One backend: the HTTP-level tests run on both.
 */
describe('A verifier onboarded from the console, in a real browser', () => {
  let t: TestService;
  let smtp: SmtpListener;
  let org: TestOrg;
  let orgName: string;
  let admin: ConsolePerson;
  let browser: Browser;
  let page: Page;
  let link: string;
  const verifierEmail = `verifier-${Date.now()}@example.com`;
  const password = 'seven lanterns over the harbour';

  const heading = (on: Page) => on.$eval('h1', (e) => e.textContent);
  const submit = async (on: Page, selector: string) => void (await Promise.all([on.waitForNavigation(), on.click(selector)]));
  async function accessible(on: Page, name: string): Promise<void> {
    const violations = await axeScan(on);
    assert.deepEqual(violations, [], `${name} (${on.url()}): ${formatViolations(violations)}`);
  }

  before(async () => {
    smtp = await startSmtpListener();
    t = await startTestService(backends()[0]!, { TESSERA_SMTP_URL: smtp.url, TESSERA_SMTP_FROM: 'tessera@example.com' });
    org = await t.org();
    orgName = (await t.service.store.getOrganization(org.orgId))!.name;
    admin = await consolePerson(t, org, { roles: ['admin'] });
    browser = await launchBrowser();
    page = await browser.newPage();
    await page.setViewport({ width: 1100, height: 900 });
  });
  after(async () => {
    await browser?.close();
    await t?.close();
    await smtp?.close();
  });

  it('the administrator creates the verifier and emails them an invitation, the link shown once', async () => {
    await page.goto(`${t.url}/console/sign-in?org=${encodeURIComponent(orgName)}`);
    await page.type('#email', admin.email);
    await page.type('#password', admin.password);
    await submit(page, '#sign-in button[type=submit]');
    await page.type('#code', admin.recoveryCodes.shift()!);
    await submit(page, 'form[action="/console/sign-in/code"] button[type=submit]');
    await page.goto(`${t.url}/console/admin/persons`);
    await page.type('#email', verifierEmail);
    await page.click('#new-role-verifier');
    await submit(page, 'form[action="/console/admin/persons"] button[type=submit]');
    assert.equal(await heading(page), verifierEmail);
    await accessible(page, 'person page with its sign-in section');
    await page.click('#send');
    await submit(page, 'form[action$="/invitation"] button[type=submit]');
    assert.equal(await heading(page), 'Invitation link');
    link = await page.$eval('#invitation-url', (e) => e.textContent ?? '');
    assert.match(link, /\/console\/invitation\/[A-Za-z0-9_-]{43}$/);
    assert.match(await page.$eval('main', (e) => e.textContent ?? ''), new RegExp(`Emailed\\s*to ${verifierEmail.replace('.', '\\.')}`));
  });

  it('the email carries the link, never in its subject', async () => {
    const mail = await smtp.nextMessage();
    assert.deepEqual(mail.rcptTo, [verifierEmail]);
    assert.ok(mail.text.includes(link), mail.text);
    assert.ok(!mail.headers.get('subject')?.includes('invitation/'), 'the subject holds no link');
  });

  it('the verifier follows it in their own browser, chooses a password, must add an authenticator app, and is signed in', async () => {
    const theirs = await (await browser.createBrowserContext()).newPage();
    await theirs.setViewport({ width: 390, height: 844 });
    await theirs.goto(link);
    assert.equal(await heading(theirs), 'Choose your password');
    await accessible(theirs, 'invitation page');
    assert.match(await theirs.$eval('main', (e) => e.textContent ?? ''), /Your roles need two factors/);
    await theirs.type('#password', password);
    await theirs.type('#password-again', password);
    await submit(theirs, 'form[action="/console/invitation"] button[type=submit]');
    assert.equal(await heading(theirs), 'Add a second factor');
    await theirs.goto(`${t.url}/console/verify`);
    assert.equal(await heading(theirs), 'Add a second factor', 'nothing else before the second factor');
    await submit(theirs, 'form[action="/console/security/totp"] button[type=submit]');
    const secret = (await theirs.$eval('#totp-secret', (e) => e.textContent ?? '')).replace(/\s/g, '');
    await theirs.type('#code', new TOTP({ secret: Secret.fromBase32(secret) }).generate());
    await submit(theirs, 'form[action="/console/security/totp/confirm"] button[type=submit]');
    await theirs.goto(`${t.url}/console/verify`);
    assert.equal(await heading(theirs), 'Verify a caller');
    assert.match(await theirs.$eval('header', (e) => e.textContent ?? ''), new RegExp(verifierEmail.replace('.', '\\.')));
    await theirs.goto(link);
    assert.match(await theirs.$eval('main', (e) => e.textContent ?? ''), /this link does not work/, 'spent once the second factor is there');
  });
});
