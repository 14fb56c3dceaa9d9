import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'puppeteer-core';
import { backends } from '../helpers/backends.ts';
import {
  addVirtualAuthenticator,
  axeScan,
  cookieHeader,
  formatViolations,
  launchBrowser,
  screenshot,
  type VirtualAuthenticator,
  waitForText,
} from '../helpers/browser.ts';
import { type ConsolePerson, consolePerson } from '../helpers/console.ts';
import { codeFrom } from '../helpers/smtp.ts';
import { startVerificationHarness, type VerificationHarness } from '../verification/harness.ts';

const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

/**
 * The console in a real Chromium: a verifier's whole day, as issue 14 tells it. One backend is
 * enough here (the pages' store work is tested on both by the HTTP-level console tests), and
 * the steps run in order in one browser tab, since each builds on the one before.
 */
describe('The console in a real browser', () => {
  let h: VerificationHarness;
  let browser: Browser;
  let page: Page;
  let authenticator: VirtualAuthenticator;
  let verifier: ConsolePerson;
  let base: string;

  /** Every page the test visits is scanned; a serious or critical violation fails the page's step. */
  const scanned = new Set<string>();
  async function accessible(name: string, on: Page = page): Promise<void> {
    const violations = await axeScan(on);
    assert.deepEqual(violations, [], `${name} (${on.url()}): ${formatViolations(violations)}`);
    scanned.add(name);
  }

  const focusedId = () => page.evaluate(() => (globalThis as any).document.activeElement?.id as string | undefined);

  /** docs/console.md's screenshots, refreshed when asked for (CONSOLE_SCREENSHOTS=1), so a test run leaves the tree as it was. */
  async function shot(file: string, on: Page = page): Promise<void> {
    if (process.env.CONSOLE_SCREENSHOTS === '1') await screenshot(on, file);
  }

  async function submit(selector: string): Promise<void> {
    await Promise.all([page.waitForNavigation(), page.click(selector)]);
  }

  before(async () => {
    h = await startVerificationHarness(backends()[0]!);
    // WebAuthn needs a secure context: http://localhost is one, http://127.0.0.1 is not a valid RP id.
    base = h.t.url.replace('127.0.0.1', 'localhost');
    const config = await h.t.call('PATCH', '/organizations/config', { as: h.org, body: { webauthn_rp_id: 'localhost', webauthn_origins: [base] } });
    assert.equal(config.status, 200, JSON.stringify(config.body));
    verifier = await consolePerson(h.t, h.org, { roles: ['verifier', 'admin'] });
    browser = await launchBrowser();
    page = await browser.newPage();
    await page.setViewport({ width: 1100, height: 900 });
    authenticator = await addVirtualAuthenticator(page);
  });
  after(async () => {
    await browser?.close();
    await h?.close();
  });

  it('signs a verifier in with a password, using the keyboard alone', async () => {
    await page.goto(`${base}/console/sign-in?org=${h.org.orgId}`);
    await accessible('sign-in');
    await shot('sign-in.png');
    await page.keyboard.press('Tab'); // the skip link
    await page.keyboard.press('Tab'); // the console's name
    await page.keyboard.press('Tab'); // organisation, filled in from ?org=
    assert.equal(await focusedId(), 'organization');
    await page.keyboard.press('Tab');
    await page.keyboard.type(verifier.email);
    await page.keyboard.press('Tab'); // the passkey button
    await page.keyboard.press('Tab');
    assert.equal(await focusedId(), 'password');
    await page.keyboard.type(verifier.password);
    await Promise.all([page.waitForNavigation(), page.keyboard.press('Enter')]);
    // The second factor (design §5): the code field has the focus, and Enter sends it.
    assert.equal(new URL(page.url()).pathname, '/console/sign-in/code');
    await accessible('sign-in: second factor');
    assert.equal(await focusedId(), 'code');
    await page.keyboard.type(verifier.recoveryCodes.shift()!);
    await Promise.all([page.waitForNavigation(), page.keyboard.press('Enter')]);
    assert.equal(new URL(page.url()).pathname, '/console/verify');
    await accessible('verify: find');
  });

  it('registers a passkey through the virtual authenticator', async () => {
    await page.goto(`${base}/console/security`);
    await accessible('my security');
    await page.type('#passkey-register input[name=label]', 'Test laptop');
    await submit('#passkey-register button[type=submit]');
    await waitForText(page, 'Test laptop');
    const held = await authenticator.credentials();
    assert.equal(held.length, 1);
    assert.equal(held[0]!.isResidentKey, true, 'a discoverable credential');
    await shot('security.png');
  });

  it('signs out, and signs back in with the passkey without typing an email', async () => {
    const signedInCookies = await cookieHeader(page, base);
    assert.match(signedInCookies, /__Host-tessera-console=/, 'Chromium kept the Secure __Host- cookie on http://localhost');
    await submit('header form[action="/console/sign-out"] button');
    await waitForText(page, 'You are signed out.');
    // The cookie of the ended session opens nothing, replayed from outside the browser.
    const replay = await fetch(`${base}/console/verify`, { headers: { cookie: signedInCookies }, redirect: 'manual' });
    assert.equal(replay.status, 303);
    assert.equal(replay.headers.get('location'), '/console/sign-in?notice=expired');

    // Signing out kept the organisation: the sign-in page has it filled in.
    const orgName = (await h.t.service.store.getOrganization(h.org.orgId))!.name;
    assert.equal(await page.$eval('#organization', (input) => (input as unknown as { value: string }).value), orgName);
    await submit('#passkey-sign-in');
    assert.equal(new URL(page.url()).pathname, '/console/verify');
    const [credential] = await authenticator.credentials();
    assert.ok(credential!.signCount >= 1, 'the passkey signed an assertion');
  });

  it("verifies a caller's email with the code read from the SMTP listener", async () => {
    const caller = await h.provisioned();
    await page.select('#connection', h.scim.connectionId);
    await page.type('#email', caller.email);
    await submit('form[action="/console/verify/find"] button[type=submit]');
    await waitForText(page, caller.email);
    await accessible('verify: found');
    await submit('form[action="/console/verify/send"] button[type=submit]');
    await accessible('verify: code entry');
    await shot('verify-code.png');
    const code = codeFrom(await h.smtp.nextMessage());
    await page.type('#code', code);
    await submit('form[action^="/console/verify/evf_"] button[type=submit]');
    assert.equal(await page.$eval('h1', (e) => e.textContent), 'Verified');
    await accessible('verify: verified');
    await shot('verify-verified.png');
  });

  it('shows the deny-gate refusing a caller deactivated over SCIM between the code and its check', async () => {
    const caller = await h.provisioned();
    await page.goto(`${base}/console/verify`);
    await page.select('#connection', h.scim.connectionId);
    await page.type('#email', caller.email);
    await submit('form[action="/console/verify/find"] button[type=submit]');
    await submit('form[action="/console/verify/send"] button[type=submit]');
    const code = codeFrom(await h.smtp.nextMessage());
    const deactivated = await h.scim.call('PATCH', `/Users/${caller.id}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'replace', path: 'active', value: false }],
    });
    assert.equal(deactivated.status, 200, JSON.stringify(deactivated.body));
    await page.type('#code', code);
    await submit('form[action^="/console/verify/evf_"] button[type=submit]');
    assert.equal(await page.$eval('h1', (e) => e.textContent), 'Denied');
    await waitForText(page, 'the identity was removed or deactivated');
    await accessible('verify: denied');
    await shot('verify-denied.png');
  });

  it('audits both attempts with the signed-in verifier as operator', async () => {
    const events = await h.t.call('GET', '/audit/events?type=verification.attempt&limit=100', { as: h.org });
    const attempts = (events.body.result as { data: Record<string, unknown> }[]).map((e) => e.data);
    assert.deepEqual(
      attempts.map((a) => [a.outcome, a.operator_email, a.operator_assertion, a.caller_person_id]),
      [
        ['verified', verifier.email, 'helpdesk_session', verifier.id],
        ['refused', verifier.email, 'helpdesk_session', verifier.id],
      ],
    );
  });

  it('refuses a form whose CSRF token was taken out of the page, and changes nothing', async () => {
    await page.goto(`${base}/console/admin/api-keys`);
    const before = (await h.t.call('GET', '/organizations/api-keys', { as: h.org })).body.result.length;
    await page.type('form[action="/console/admin/api-keys"] input[name=name]', 'planted');
    await page.$eval('form[action="/console/admin/api-keys"] input[name=_csrf]', (input) => (input as any).remove());
    const answer = await Promise.all([page.waitForNavigation(), page.click('form[action="/console/admin/api-keys"] button[type=submit]')]);
    assert.equal(answer[0]?.status(), 403);
    await waitForText(page, 'is missing or does not belong to this browser');
    await accessible('error page');
    assert.equal((await h.t.call('GET', '/organizations/api-keys', { as: h.org })).body.result.length, before, 'no key was made');
  });

  it('does not let a person outside the console sign in, in another browser context', async () => {
    const outsider = await consolePerson(h.t, h.org, { console: false });
    const context = await browser.createBrowserContext();
    try {
      const other = await context.newPage();
      await other.goto(`${base}/console/sign-in?org=${h.org.orgId}`);
      await other.type('#email', outsider.email);
      await other.type('#password', outsider.password);
      const [answer] = await Promise.all([other.waitForNavigation(), other.click('#sign-in button[type=submit]')]);
      assert.equal(answer?.status(), 403);
      await waitForText(other, "only members of the organisation's console may sign in");
      assert.equal((await other.goto(`${base}/console/verify`))?.url(), `${base}/console/sign-in`);
    } finally {
      await context.close();
    }
  });

  const OTHER_PAGES = [
    '/console/admin',
    '/console/admin/persons',
    '/console/admin/connections',
    '/console/admin/clients',
    '/console/admin/api-keys',
    '/console/admin/organization',
    '/console/admin/audit',
    '/console/no-such-page',
  ];

  it('passes the accessibility scan on every other page, and the authenticator-app set-up', async () => {
    for (const path of [...OTHER_PAGES, `/console/admin/persons/${verifier.id}`, `/console/admin/connections/${h.scim.connectionId}`]) {
      await page.goto(`${base}${path}`);
      await accessible(path.replace(/\/(per|con)_\w+$/, '/:id'));
    }
    await page.goto(`${base}/console/admin/persons`);
    await shot('admin-persons.png');
    await page.goto(`${base}/console/admin/organization`);
    await shot('admin-organization.png');

    // A new administrator with a password only: the console asks for a second factor first.
    const newcomer = await consolePerson(h.t, h.org, { roles: ['admin'], secondFactor: false });
    const context = await browser.createBrowserContext();
    try {
      const other = await context.newPage();
      await other.setViewport({ width: 1100, height: 900 });
      await other.goto(`${base}/console/sign-in?org=${h.org.orgId}`);
      await other.type('#email', newcomer.email);
      await other.type('#password', newcomer.password);
      await Promise.all([other.waitForNavigation(), other.click('#sign-in button[type=submit]')]);
      assert.equal(new URL(other.url()).pathname, '/console/enrol');
      await accessible('enrolment', other);
      await shot('enrolment.png', other);
      await Promise.all([other.waitForNavigation(), other.click('form[action="/console/security/totp"] button[type=submit]')]);
      assert.ok(await other.$('svg[role=img]'), 'the key URI as a QR code');
      await accessible('authenticator app set-up', other);
      await shot('totp-setup.png', other);
    } finally {
      await context.close();
    }
  });

  it('reads at 200% zoom without scrolling sideways', async () => {
    // 200% zoom of a 1100 px window lays the page out in 550 CSS pixels.
    await page.setViewport({ width: 550, height: 900 });
    for (const path of [
      '/console/verify',
      '/console/security',
      '/console/admin',
      '/console/admin/persons',
      '/console/admin/organization',
      '/console/admin/audit',
    ]) {
      await page.goto(`${base}${path}`);
      const overflow = await page.evaluate(() => {
        const root = (globalThis as any).document.documentElement;
        return root.scrollWidth - root.clientWidth;
      });
      assert.equal(overflow, 0, `${path} scrolls sideways by ${overflow} px at 200%`);
    }
  });

  it('scanned every page it visited', () => {
    const expected = [
      'authenticator app set-up',
      'enrolment',
      'error page',
      'my security',
      'sign-in',
      'sign-in: second factor',
      'verify: code entry',
      'verify: denied',
      'verify: find',
      'verify: found',
      'verify: verified',
      ...OTHER_PAGES,
      '/console/admin/persons/:id',
      '/console/admin/connections/:id',
    ];
    assert.deepEqual([...scanned].sort(), expected.sort());
  });
});
