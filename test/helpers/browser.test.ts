import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'puppeteer-core';
import { addVirtualAuthenticator, axeScan, cookieHeader, cookiesOf, formatViolations, launchBrowser, waitForText } from './browser.ts';

// The browser harness itself, against a tiny server that sends the console's CSP on every response.

const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

const page = (body: string, head = '', bodyAttributes = '') =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Harness</title>${head}</head><body${bodyAttributes}>${body}</body></html>`;

// Raw WebAuthn, as a console page's own script would run it; the outcome goes into #out as text.
const WEBAUTHN_JS = `
const out = document.getElementById('out');
const bytes = (n) => crypto.getRandomValues(new Uint8Array(n));
const b64url = (buffer) => btoa(String.fromCharCode(...new Uint8Array(buffer))).replace(/\\+/g, '-').replace(/\\//g, '_').replace(/=+$/, '');
async function register() {
  const created = await navigator.credentials.create({ publicKey: {
    challenge: bytes(32), rp: { id: 'localhost', name: 'Harness' },
    user: { id: new TextEncoder().encode('person-1'), name: 'ada@example.com', displayName: 'Ada' },
    pubKeyCredParams: [{ type: 'public-key', alg: -7 }, { type: 'public-key', alg: -257 }],
    authenticatorSelection: { residentKey: 'required', userVerification: 'required' }, attestation: 'none',
  } });
  return { created: created.id, ...(await signIn()) };
}
async function signIn() {
  // No allowCredentials: a discoverable (passkey) sign-in, so the credential must be resident.
  const got = await navigator.credentials.get({ publicKey: { challenge: bytes(32), rpId: 'localhost', userVerification: 'required' } });
  return { asserted: got.id, userHandle: b64url(got.response.userHandle) };
}
(document.body.dataset.flow === 'register' ? register() : signIn())
  .then((result) => { out.textContent = 'done ' + JSON.stringify(result); })
  .catch((error) => { out.textContent = 'failed ' + error.name + ': ' + error.message; });
`;

// Runs before the body's inline script: records that the CSP refused it, and that external scripts do run.
const PROBE_JS = `
document.documentElement.dataset.externalRan = 'yes';
document.addEventListener('securitypolicyviolation', (event) => { document.documentElement.dataset.blocked = event.violatedDirective; });
`;

const PIXEL = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=', 'base64');
const INLINE = '<script>window.inlineRan = true;</script>';

const routes: Record<string, [type: string, body: string | Buffer]> = {
  '/webauthn.js': ['text/javascript', WEBAUTHN_JS],
  '/probe.js': ['text/javascript', PROBE_JS],
  '/pixel.png': ['image/png', PIXEL],
  '/register': [
    'text/html',
    page('<main><h1>Register</h1><pre id="out">working</pre></main>', '<script src="/webauthn.js" defer></script>', ' data-flow="register"'),
  ],
  '/signin': ['text/html', page('<main><h1>Sign in</h1><pre id="out">working</pre></main>', '<script src="/webauthn.js" defer></script>')],
  '/elsewhere': ['text/html', page('<main><h1>Another site</h1></main>')],
  '/bad': ['text/html', page(`<main><h1>Bad</h1><img src="/pixel.png"><input type="text">${INLINE}</main>`, '<script src="/probe.js"></script>')],
  '/clean': [
    'text/html',
    page(
      `<main><h1>Clean</h1><img src="/pixel.png" alt="A dot"><label for="name">Name</label><input id="name" type="text">${INLINE}</main>`,
      '<script src="/probe.js"></script>',
    ),
  ],
};

describe('browser test harness', () => {
  let browser: Browser;
  let server: Server;
  let port: number;

  before(async () => {
    server = createServer((request, response) => {
      const path = new URL(request.url ?? '/', 'http://x').pathname;
      const route = routes[path];
      response.setHeader('content-security-policy', CSP);
      if (path === '/clean') response.setHeader('set-cookie', 'sid=s3cr3t; Path=/; HttpOnly; SameSite=Strict');
      if (!route) return void response.writeHead(404).end();
      const [type, body] = route;
      response.setHeader('content-type', type);
      response.end(body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as { port: number }).port;
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
  });

  it('registers a passkey with the virtual authenticator, and signs in with it on a later page after a cross-site navigation', async () => {
    const tab = await browser.newPage();
    const authenticator = await addVirtualAuthenticator(tab);
    assert.deepEqual(await authenticator.credentials(), []);

    // localhost, not 127.0.0.1: WebAuthn needs a secure context, and http://localhost is one.
    await tab.goto(`http://localhost:${port}/register`);
    await waitForText(tab, 'done');
    const registered = JSON.parse((await tab.$eval('#out', (el) => el.textContent ?? '')).slice('done '.length));
    const held = await authenticator.credentials();
    assert.equal(held.length, 1, JSON.stringify(held));
    assert.equal(held[0]!.isResidentKey, true);
    assert.equal(held[0]!.rpId, 'localhost');
    assert.equal(held[0]!.credentialId, registered.created, 'the authenticator lists the id the page saw');
    assert.equal(registered.asserted, registered.created, 'get() answered with the credential create() made');
    assert.equal(held[0]!.userHandle, Buffer.from('person-1').toString('base64url'));
    assert.equal(registered.userHandle, held[0]!.userHandle);
    assert.ok(held[0]!.signCount >= 1, `signCount ${held[0]!.signCount}`);

    // Another site (a renderer process swap), then a fresh document on the first: the authenticator belongs to the tab.
    await tab.goto(`http://127.0.0.1:${port}/elsewhere`);
    await tab.goto(`http://localhost:${port}/signin`);
    await waitForText(tab, 'done');
    const signedIn = JSON.parse((await tab.$eval('#out', (el) => el.textContent ?? '')).slice('done '.length));
    assert.equal(signedIn.asserted, registered.created);
    const later = await authenticator.credentials();
    assert.equal(later.length, 1);
    assert.ok(later[0]!.signCount > held[0]!.signCount, 'the second assertion counted');

    await authenticator.remove();
    await tab.close();
  });

  it('axeScan finds a serious violation under the strict CSP, and none on a clean page; the CSP was in force', async () => {
    const tab = await browser.newPage();
    const response = await tab.goto(`http://localhost:${port}/bad`);
    assert.equal(response?.headers()['content-security-policy'], CSP);
    await tab.waitForFunction(() => (globalThis as any).document.documentElement.dataset.blocked !== undefined, { timeout: 5000 });
    const csp = await tab.evaluate(() => ({ ...(globalThis as any).document.documentElement.dataset, inlineRan: (globalThis as any).inlineRan }));
    assert.equal(csp.externalRan, 'yes', 'same-origin scripts run');
    assert.equal(csp.inlineRan, undefined, 'the inline script did not run');
    assert.match(csp.blocked, /^script-src/, 'the CSP refused it');

    const bad = await axeScan(tab);
    const ids = bad.map((v) => v.id).sort();
    assert.deepEqual(ids, ['image-alt', 'label'], formatViolations(bad));
    assert.ok(bad.every((v) => v.impact === 'critical' || v.impact === 'serious'));
    assert.deepEqual(bad.find((v) => v.id === 'image-alt')?.targets, ['img']);
    assert.match(formatViolations(bad), /^\[critical\] image-alt: Images must have alternative text -> img$/m);
    assert.deepEqual(await axeScan(tab, { disableRules: ['image-alt', 'label'] }), []);

    await tab.goto(`http://localhost:${port}/clean`);
    const clean = await axeScan(tab);
    assert.deepEqual(clean, [], formatViolations(clean));
    assert.equal(await tab.evaluate(() => (globalThis as any).inlineRan), undefined);

    // The session-cookie helpers see the HttpOnly cookie the page itself cannot.
    assert.equal(await cookieHeader(tab, `http://localhost:${port}/anything`), 'sid=s3cr3t');
    assert.equal(await cookieHeader(tab, `http://127.0.0.1:${port}/`), '', 'host-only cookie, another host');
    const sid = (await cookiesOf(tab)).find((c) => c.name === 'sid');
    assert.equal(sid?.httpOnly, true);
    await tab.close();
  });
});
