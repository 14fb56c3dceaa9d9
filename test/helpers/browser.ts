import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import sparticuz from '@sparticuz/chromium';
import puppeteer, { type Browser, type CDPSession, type Cookie, type Page } from 'puppeteer-core';
import { type ChromiumChoice, findChromium } from './chromium.ts';

// A real headless Chromium for the console's tests. The console sends a strict CSP
// (script-src 'self', no 'unsafe-inline' or 'unsafe-eval'), and these helpers work under it
// without weakening it: nothing here calls page.setBypassCSP or injects an inline <script>.
// What the tests run in the page goes in over CDP (Runtime.evaluate / callFunctionOn), which the
// page's CSP does not govern — even eval from such code runs, while the page's own eval is refused.

export { chromiumPath } from './chromium.ts';

/** Headless Chromium (findChromium's choice unless given one); each test file launches its own and closes it in `after`. */
export async function launchBrowser(chromium: ChromiumChoice = findChromium()): Promise<Browser> {
  const npm = chromium.from === 'npm';
  return puppeteer.launch({
    executablePath: chromium.executablePath,
    // The npm build is chrome-headless-shell, which has only the old headless mode.
    headless: npm ? 'shell' : true,
    // DevTools over a pipe, not a TCP port other local processes could reach.
    pipe: true,
    env: { ...process.env, ...chromium.env },
    args: [
      // /dev/shm is 64 MB in most containers; Chromium crashes tabs when it fills.
      '--disable-dev-shm-usage',
      '--no-first-run',
      '--no-default-browser-check',
      '--disable-extensions',
      '--disable-background-networking',
      '--disable-component-update',
      // Chromium refuses to start its sandbox as root (CI containers); a normal user keeps it.
      ...(process.getuid?.() === 0 ? ['--no-sandbox'] : []),
      ...(npm ? NPM_CHROMIUM_ARGS : []),
    ],
  });
}

/**
 * What the npm build needs to start: the package's `args`, less the flags that switch off the
 * same-origin policy and mixed-content blocking (the tests check the pages as users' browsers
 * enforce them) and less --single-process, which AWS Lambda's seccomp needs and which crashes the
 * browser when a test closes a second browser context.
 */
const NPM_CHROMIUM_ARGS = npmChromiumArgs();

function npmChromiumArgs(): string[] {
  const dropped = ['--single-process', '--disable-web-security', '--allow-running-insecure-content', '--disable-site-isolation-trials'];
  // puppeteer sets the headless mode itself.
  return sparticuz.args.filter((arg) => !dropped.includes(arg) && !arg.startsWith('--headless'));
}

/** A credential as the virtual authenticator holds it; ids are base64url, as PublicKeyCredential.id and the server have them. */
export interface VirtualCredential {
  credentialId: string;
  isResidentKey: boolean;
  rpId: string | undefined;
  userHandle: string | undefined;
  signCount: number;
}

export interface VirtualAuthenticator {
  authenticatorId: string;
  session: CDPSession;
  credentials(): Promise<VirtualCredential[]>;
  /** Removes the authenticator (and its credentials) and detaches the CDP session. */
  remove(): Promise<void>;
}

/**
 * A platform passkey authenticator (CTAP2, internal, resident keys, user verification that always
 * succeeds, presence simulated) for this page's target. It lives as long as the tab: it survives
 * navigations, same-origin and cross-site (browser.test.ts proves it); another tab does not see it.
 */
export async function addVirtualAuthenticator(page: Page): Promise<VirtualAuthenticator> {
  const session = await page.createCDPSession();
  await session.send('WebAuthn.enable');
  const { authenticatorId } = await session.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  return {
    authenticatorId,
    session,
    async credentials() {
      const { credentials } = await session.send('WebAuthn.getCredentials', { authenticatorId });
      return credentials.map((c) => ({
        credentialId: base64url(c.credentialId),
        isResidentKey: c.isResidentCredential,
        rpId: c.rpId,
        userHandle: c.userHandle === undefined ? undefined : base64url(c.userHandle),
        signCount: c.signCount,
      }));
    },
    async remove() {
      await session.send('WebAuthn.removeVirtualAuthenticator', { authenticatorId });
      await session.detach();
    },
  };
}

/** CDP gives binary fields as standard base64. */
function base64url(base64: string): string {
  return Buffer.from(base64, 'base64').toString('base64url');
}

export interface AxeViolation {
  id: string;
  impact: string;
  help: string;
  /** One CSS selector path per offending element. */
  targets: string[];
}

export interface AxeScanOptions {
  /** Limit the scan to this selector (default: the whole document). */
  include?: string;
  /** Rules to skip, each with a reason at the call site. */
  disableRules?: string[];
  /** Impacts that count (default serious and critical). */
  impacts?: string[];
}

const AXE_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'];
let axeSource: string | undefined;

/**
 * axe-core's WCAG 2.1 A/AA and best-practice rules on the page as it is now, under the page's own CSP.
 * axe's source goes in through Runtime.evaluate, once per document: DevTools code is not subject to
 * script-src, where an injected <script> would be refused (browser.test.ts proves both).
 */
export async function axeScan(page: Page, options: AxeScanOptions = {}): Promise<AxeViolation[]> {
  const loaded = await page.evaluate(() => typeof (globalThis as any).axe?.run === 'function');
  if (!loaded) {
    axeSource ??= readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
    // `;undefined`: the script's completion value is not shipped back to Node.
    await page.evaluate(`${axeSource}\n;undefined`);
  }
  const { include, disableRules = [], impacts = ['serious', 'critical'] } = options;
  return page.evaluate(
    async (include, disableRules, impacts, tags) => {
      const g = globalThis as any;
      const rules = Object.fromEntries(disableRules.map((id) => [id, { enabled: false }]));
      // A selector that matches nothing makes axe throw, rather than scan nothing and pass.
      const result = await g.axe.run(include ? { include: [include] } : g.document, { runOnly: { type: 'tag', values: tags }, rules });
      return result.violations
        .filter((v: any) => impacts.includes(v.impact))
        .map((v: any) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map((n: any) => n.target.join(' ')) }));
    },
    include,
    disableRules,
    impacts,
    AXE_TAGS,
  );
}

/** One line per violation, for an assertion message: `[serious] color-contrast: ... -> main > p`. */
export function formatViolations(list: AxeViolation[]): string {
  if (list.length === 0) return 'no accessibility violations';
  return list.map((v) => `[${v.impact}] ${v.id}: ${v.help} -> ${v.targets.join(', ')}`).join('\n');
}

/** Every cookie of the page's browser context (httpOnly ones included), for asserting on flags. */
export function cookiesOf(page: Page): Promise<Cookie[]> {
  return page.browserContext().cookies();
}

/**
 * The Cookie header the browser would send to `url` (by host and path; the console's cookies are
 * all Path=/), so a test can replay a stolen session with fetch, e.g. after sign-out, to prove the
 * server revoked it. Read through the browser context, not a CDP session of its own: detaching a
 * second session from the page stalls the virtual authenticator's next ceremony (regression:
 * a passkey sign-in hung after this helper ran).
 */
export async function cookieHeader(page: Page, url: string): Promise<string> {
  const { hostname, pathname } = new URL(url);
  const cookies = await page.browserContext().cookies();
  return cookies
    .filter((c) => (c.domain === hostname || (c.domain.startsWith('.') && hostname.endsWith(c.domain))) && pathname.startsWith(c.path))
    .map((c) => `${c.name}=${c.value}`)
    .join('; ');
}

const DOCS_CONSOLE = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'docs', 'console');

/** A full-page PNG in docs/console/ (the folder is made on first use); returns the path written. */
export async function screenshot(page: Page, file: string): Promise<string> {
  mkdirSync(DOCS_CONSOLE, { recursive: true });
  const path = join(DOCS_CONSOLE, basename(file).endsWith('.png') ? basename(file) : `${basename(file)}.png`);
  await page.screenshot({ path: path as `${string}.png`, fullPage: true });
  return path;
}

/** Waits until the page's visible text contains `text`, across navigations; on timeout says what the page showed. */
export async function waitForText(page: Page, text: string, timeoutMs = 5000): Promise<void> {
  try {
    await page.waitForFunction(
      (text) => ((globalThis as any).document.body?.innerText ?? '').includes(text),
      // Interval polling: puppeteer's mutation polling ignores text-node edits (characterData).
      { timeout: timeoutMs, polling: 100 },
      text,
    );
  } catch (error) {
    const shown = await page.evaluate(() => (globalThis as any).document.body?.innerText ?? '').catch(() => '(no document)');
    throw new Error(`waiting for ${JSON.stringify(text)}: ${(error as Error).message}; the page shows:\n${String(shown).slice(0, 2000)}`);
  }
}
