import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'puppeteer-core';
import { backends } from '../helpers/backends.ts';
import { axeScan, formatViolations, launchBrowser } from '../helpers/browser.ts';
import { type ConsolePerson, consolePerson } from '../helpers/console.ts';
import { EXCHANGE } from '../helpers/oauth.ts';
import { codeFrom } from '../helpers/smtp.ts';
import { startVerificationHarness, type VerificationHarness } from '../verification/harness.ts';

const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1100, height: 900 };
const LONG_SPIFFE_ID = `spiffe://production.example.org/${'orders-service/'.repeat(6)}gateway`;

/**
 * Issue 27's first-run rough edges, measured in a real Chromium the way a newcomer met them: on a
 * phone's 390 px screen no page scrolls sideways (the clients table was 635 px wide), the
 * navigation shows where one is, the audit log keeps each time on one line, and a verification
 * says whom it verified. One backend is enough: what is measured is layout, and the HTTP-level
 * tests hold the same pages on both databases.
 */
describe('The console on a phone, in a real browser', () => {
  let h: VerificationHarness;
  let browser: Browser;
  let page: Page;
  let admin: ConsolePerson;
  let keyedClientId: string;

  const submit = async (selector: string) => void (await Promise.all([page.waitForNavigation(), page.click(selector)]));
  const evaluate = <T>(fn: () => T) => page.evaluate(fn) as Promise<T>;
  async function accessible(): Promise<void> {
    const violations = await axeScan(page);
    assert.deepEqual(violations, [], `${page.url()}: ${formatViolations(violations)}`);
  }

  before(async () => {
    h = await startVerificationHarness(backends()[0]!);
    admin = await consolePerson(h.t, h.org, { roles: ['verifier', 'admin'] });
    for (const name of ['billing', 'the gateway of the orders service, in production']) {
      const made = await h.t.call('POST', '/oauth2/clients', { as: h.org, body: { client_name: name, grant_types: ['client_credentials', EXCHANGE] } });
      assert.equal(made.status, 201, JSON.stringify(made.body));
    }
    // A client without a secret whose SPIFFE ID is longer than a phone's screen is wide.
    const keyed = await h.t.call('POST', '/oauth2/clients', {
      as: h.org,
      body: { client_name: 'workload', grant_types: ['client_credentials'], token_endpoint_auth_method: 'spiffe_jwt', spiffe_id: LONG_SPIFFE_ID },
    });
    assert.equal(keyed.status, 201, JSON.stringify(keyed.body));
    keyedClientId = keyed.body.result.client_id;
    browser = await launchBrowser();
    page = await browser.newPage();
    await page.setViewport(PHONE);
    await page.goto(`${h.t.url}/console/sign-in?org=${h.org.orgId}`);
    await page.type('#email', admin.email);
    await page.type('#password', admin.password);
    await submit('#sign-in button[type=submit]');
    await page.type('#code', admin.recoveryCodes.shift()!);
    await submit('form[action="/console/sign-in/code"] button[type=submit]');
    assert.equal(new URL(page.url()).pathname, '/console/verify');
  });
  after(async () => {
    await browser?.close();
    await h?.close();
  });

  it('scrolls no page sideways at 390 px', async () => {
    for (const path of [
      '/console/verify',
      '/console/security',
      '/console/admin',
      '/console/admin/persons',
      '/console/admin/clients',
      '/console/admin/clients/:keyed',
      '/console/admin/api-keys',
      '/console/admin/connections',
      '/console/admin/organization',
      '/console/admin/audit',
    ]) {
      await page.goto(`${h.t.url}${path.replace(':keyed', keyedClientId)}`);
      const width = await evaluate(() => (globalThis as any).document.documentElement.scrollWidth as number);
      assert.ok(width <= PHONE.width, `${path} is ${width} px wide on a ${PHONE.width} px screen`);
    }
  });

  it('fits the clients table on the screen: every action in reach, the token format and creation time under the name', async () => {
    await page.goto(`${h.t.url}/console/admin/clients`);
    const layout = await evaluate(() => {
      const d = (globalThis as any).document;
      const region = d.querySelector('.table-scroll');
      const rights = [...d.querySelectorAll('tbody button')].map((b: any) => b.getBoundingClientRect().right as number);
      const visible = (e: any) => e.getClientRects().length > 0;
      return {
        overflow: region.scrollWidth - region.clientWidth,
        rightmostButton: Math.max(...rights),
        headings: [...d.querySelectorAll('thead th')].filter(visible).map((th: any) => th.textContent as string),
        underName: [...d.querySelectorAll('tbody th .narrow-only')].filter(visible).map((e: any) => e.textContent.replace(/\s+/g, ' ') as string),
      };
    });
    assert.equal(layout.overflow, 0, 'the table does not scroll within its region either');
    assert.ok(layout.rightmostButton <= PHONE.width, `a button ends at ${layout.rightmostButton} px`);
    assert.deepEqual(layout.headings, ['Name and id', 'Grant types', 'Actions']);
    assert.equal(layout.underName.length, 3);
    for (const line of layout.underName) assert.match(line, /^(secret|SPIFFE JWT-SVID), opaque tokens, created \d{4}-\d\d-\d\d \d\d:\d\d UTC$/);
    await accessible();

    // A wide screen keeps every column, and shows the facts once; the long SPIFFE ID wraps in its cell.
    await page.setViewport(DESKTOP);
    const wide = await evaluate(() => {
      const d = (globalThis as any).document;
      const region = d.querySelector('.table-scroll');
      const visible = (e: any) => e.getClientRects().length > 0;
      return {
        overflow: region.scrollWidth - region.clientWidth,
        headings: [...d.querySelectorAll('thead th')].filter(visible).map((th: any) => th.textContent as string),
        underName: [...d.querySelectorAll('tbody th .narrow-only')].filter(visible).length,
      };
    });
    await page.setViewport(PHONE);
    assert.deepEqual(wide.headings, ['Name and id', 'Grant types', 'Authentication', 'Token format', 'Created', 'Actions']);
    assert.equal(wide.underName, 0);
    assert.equal(wide.overflow, 0, 'the table fits a wide screen without scrolling');
  });

  it("shows a keyed client's page on a phone: its SPIFFE ID wraps, and the switch form passes the accessibility scan", async () => {
    await page.goto(`${h.t.url}/console/admin/clients/${keyedClientId}`);
    const shown = await evaluate(() => (globalThis as any).document.querySelector('#client-authentication').textContent as string);
    assert.equal(shown, `spiffe_jwt, as ${LONG_SPIFFE_ID}`);
    await accessible();
  });

  it("marks the navigation's current section by more than colour", async () => {
    for (const [path, current] of [
      ['/console/admin/clients', 'Administration'],
      ['/console/security', 'My security'],
    ]) {
      await page.goto(`${h.t.url}${path}`);
      const links = await evaluate(() =>
        [...(globalThis as any).document.querySelectorAll('header nav a')].map((a: any) => {
          const style = (globalThis as any).getComputedStyle(a);
          return { text: a.textContent, current: a.getAttribute('aria-current'), weight: style.fontWeight, bar: style.borderBottomWidth };
        }),
      );
      assert.deepEqual(
        links.filter((l) => l.current !== null).map((l) => l.text),
        [current],
        path,
      );
      for (const link of links) {
        const marked = link.current !== null;
        assert.equal(link.weight, marked ? '700' : '400', `${path}: ${link.text}`);
        assert.equal(link.bar, marked ? '3px' : '0px', `${path}: ${link.text}`);
      }
    }
  });

  it('keeps each time of the audit log on one line, on a phone and on a wide screen', async () => {
    for (const viewport of [PHONE, DESKTOP]) {
      await page.setViewport(viewport);
      await page.goto(`${h.t.url}/console/admin/audit`);
      const lines = await evaluate(() => [...(globalThis as any).document.querySelectorAll('tbody time')].map((t: any) => t.getClientRects().length as number));
      assert.ok(lines.length > 3, 'the log has events');
      assert.deepEqual([...new Set(lines)], [1], `${viewport.width} px: the line boxes of each time`);
    }
    await page.setViewport(PHONE);
    await accessible();
  });

  it('shows who was found as the styled list of facts, and says whom it verified', async () => {
    const caller = await h.provisioned();
    await page.goto(`${h.t.url}/console/verify`);
    await page.select('#connection', h.scim.connectionId);
    await page.type('#email', caller.email);
    await submit('form[action="/console/verify/find"] button[type=submit]');
    const found = await evaluate(() => {
      const list = (globalThis as any).document.querySelector('main dl');
      const style = (globalThis as any).getComputedStyle;
      return { display: style(list).display, ddMargin: style(list.querySelector('dd')).marginLeft, dtWeight: style(list.querySelector('dt')).fontWeight };
    });
    assert.deepEqual(found, { display: 'grid', ddMargin: '0px', dtWeight: '600' }, 'the dl.facts of the other console pages, not a bare list');
    await accessible();
    await submit('form[action="/console/verify/send"] button[type=submit]');
    await page.type('#code', codeFrom(await h.smtp.nextMessage()));
    await submit('form[action^="/console/verify/evf_"] button[type=submit]');
    const outcome = await evaluate(() => (globalThis as any).document.querySelector('main').innerText as string);
    assert.match(outcome, new RegExp(`^Verified\\n+${caller.email.replace(/\./g, '\\.')} is verified\\.`));
    assert.ok(outcome.includes(caller.id), 'the identity id too');
    await accessible();
    const width = await evaluate(() => (globalThis as any).document.documentElement.scrollWidth as number);
    assert.ok(width <= PHONE.width, `the outcome is ${width} px wide`);
  });
});
