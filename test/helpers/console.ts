import { addTotp, policyHash } from './authn.ts';
import type { TestOrg, TestService } from './service.ts';

/** What a console page answered: its status, headers and HTML, and the CSRF token its forms carry. */
export interface ConsolePage {
  status: number;
  headers: Headers;
  html: string;
  /** The `_csrf` value of the page's first form; '' when it has none. */
  csrf: string;
  /** Where a redirect pointed, path and query. */
  location: string | null;
}

/**
 * A browser without a browser: keeps the console's cookies as a browser would (one jar, set by
 * Set-Cookie, sent back on every request) and posts forms, for the console's HTTP-level tests.
 * The real-browser tests use test/helpers/browser.ts.
 */
export class ConsoleAgent {
  readonly base: string;
  readonly jar = new Map<string, string>();

  constructor(base: string) {
    this.base = base;
  }

  get cookieHeader(): string {
    return [...this.jar].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  async get(path: string): Promise<ConsolePage> {
    return this.#send('GET', path);
  }

  /** Posts a form; the page's CSRF token is added unless `_csrf` is given (or given as null, to leave it out). */
  async post(path: string, fields: Record<string, string | string[] | null>, csrf: string): Promise<ConsolePage> {
    const form = new URLSearchParams();
    const withToken = '_csrf' in fields ? fields : { ...fields, _csrf: csrf };
    for (const [name, value] of Object.entries(withToken)) {
      if (value === null) continue;
      for (const one of Array.isArray(value) ? value : [value]) form.append(name, one);
    }
    return this.#send('POST', path, { 'content-type': 'application/x-www-form-urlencoded' }, form.toString());
  }

  /** A JSON request as console.js makes it. */
  async postJson(path: string, body: unknown, csrf: string): Promise<{ status: number; body: any }> {
    const page = await this.#send('POST', path, { 'content-type': 'application/json', accept: 'application/json', 'x-csrf-token': csrf }, JSON.stringify(body));
    return { status: page.status, body: page.html ? JSON.parse(page.html) : undefined };
  }

  /** Any request, with the agent's cookies: for bodies and methods the console's pages never send. */
  async raw(method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<ConsolePage> {
    return this.#send(method, path, headers, body);
  }

  async #send(method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<ConsolePage> {
    const response = await fetch(`${this.base}${path}`, {
      method,
      redirect: 'manual',
      headers: { ...headers, ...(this.jar.size > 0 ? { cookie: this.cookieHeader } : {}) },
      ...(body === undefined ? {} : { body }),
    });
    for (const line of response.headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      if (attributes.some((a) => /^\s*max-age=0\s*$/i.test(a)) || value === '') this.jar.delete(name);
      else this.jar.set(name, value);
    }
    const html = await response.text();
    const csrf = /name="_csrf" value="([^"]*)"/.exec(html)?.[1] ?? '';
    const location = response.headers.get('location');
    return { status: response.status, headers: response.headers, html, csrf, location };
  }

  /** Follows a redirect the way a browser does after a form (GET). */
  async follow(page: ConsolePage): Promise<ConsolePage> {
    if (page.location === null) throw new Error(`expected a redirect, got ${page.status}: ${page.html.slice(0, 300)}`);
    return this.get(page.location);
  }
}

export interface ConsolePerson {
  id: string;
  email: string;
  password: string;
  /** Unused recovery codes of the person's TOTP credential (none without one); each sign-in takes the first. */
  recoveryCodes: string[];
  /** The TOTP credential's key URI, when the person has one. */
  keyUri?: string;
}

/**
 * A person of `org` with an email handle and a password, in the console (by default) with the
 * given roles, and a TOTP credential as their second factor unless `secondFactor` is false:
 * administrators and verifiers sign in to the console with two factors (design §5).
 */
export async function consolePerson(
  t: TestService,
  org: TestOrg,
  { roles = ['verifier'], console: member = true, secondFactor = true }: { roles?: string[]; console?: boolean; secondFactor?: boolean } = {},
): Promise<ConsolePerson> {
  const email = `c${Math.random().toString(36).slice(2)}@example.com`;
  const created = await t.call('POST', '/persons', { as: org, body: { handles: [{ type: 'email_address', value: email }], roles, console: member } });
  if (created.status !== 201) throw new Error(`person creation failed: ${JSON.stringify(created.body)}`);
  const password = `pw-${Math.random().toString(36).slice(2)}-long enough`;
  const imported = await t.call('POST', `/persons/${created.body.result.id}/credentials`, {
    as: org,
    body: { type: 'password', params: { password_hash: await policyHash(password) } },
  });
  if (imported.status !== 201) throw new Error(`password import failed: ${JSON.stringify(imported.body)}`);
  const id = created.body.result.id as string;
  if (!secondFactor) return { id, email, password, recoveryCodes: [] };
  const { keyUri, recoveryCodes } = await addTotp(t, org, id);
  return { id, email, password, recoveryCodes, keyUri };
}

/** A new console administrator of `org`, signed in: the agent holding the session and the form token its pages carry. */
export async function signedInAdmin(t: TestService, org: TestOrg): Promise<{ agent: ConsoleAgent; csrf: string }> {
  const agent = new ConsoleAgent(t.url);
  const { csrf } = await signInWithPassword(agent, org.orgId, await consolePerson(t, org, { roles: ['admin'] }));
  return { agent, csrf };
}

/**
 * Signs `person` in with their password and, when a second factor is asked for, one of their
 * recovery codes; the agent then holds the session. Returns the page it lands on.
 */
export async function signInWithPassword(agent: ConsoleAgent, orgName: string, person: ConsolePerson): Promise<ConsolePage> {
  const form = await agent.get('/console/sign-in');
  const answer = await agent.post('/console/sign-in', { organization: orgName, email: person.email, password: person.password }, form.csrf);
  if (answer.status !== 303) throw new Error(`sign-in failed (${answer.status}): ${answer.html.slice(0, 500)}`);
  let page = await agent.follow(answer);
  if (answer.location === '/console/sign-in/code') {
    const code = person.recoveryCodes.shift();
    if (!code) throw new Error('the person has no recovery code left for the second step');
    const second = await agent.post('/console/sign-in/code', { code }, page.csrf);
    if (second.status !== 303) throw new Error(`second step failed (${second.status}): ${second.html.slice(0, 500)}`);
    page = await agent.follow(second);
  }
  while (page.status === 303) page = await agent.follow(page);
  return page;
}
