/**
 * Makes test/upgrade/fixtures/release-10.json: a database as release 10 (schema version 10, the
 * release before design §5's second-factor rules) leaves it, with the tokens and console cookies
 * it handed out, for test/upgrade/release-10.test.ts. It drives that release's own service and
 * CLI over HTTP, then dumps the rows of its SQLite file, so nothing in the fixture is written by
 * this release's code. Run it once, from this checkout, against a checkout of release 10:
 *
 *   git worktree add /tmp/release10 c546908 && ln -s "$PWD/node_modules" /tmp/release10/node_modules
 *   ./node_modules/.bin/node test/upgrade/make-release-10-fixture.ts /tmp/release10
 *
 * The secrets in the fixture (TEST_SECRET, tokens, cookies, passwords) are test values only.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SoftwareAuthenticator } from '../../src/dev/software-authenticator.ts';
import { policyHash, totpImport } from '../helpers/authn.ts';
import { TEST_SECRET } from '../helpers/service.ts';
import { importParams, ORIGIN, RP_ID } from '../methods/passkey/passkeys.ts';
import { RELEASE_10_PORT, type Release10Fixture } from './release-10.ts';
import { dumpSqlite, makeFixture } from './release-fixtures.ts';

const checkout = process.argv[2];
if (!checkout) throw new Error('usage: make-release-10-fixture.ts <checkout of release 10>');
const dir = mkdtempSync(join(tmpdir(), 'tessera-release-10-'));
const env = {
  ...process.env,
  TESSERA_DATABASE: `sqlite:${join(dir, 'tessera.db')}`,
  TESSERA_SECRET: TEST_SECRET,
  TESSERA_DEV: '0',
  TESSERA_PORT: String(RELEASE_10_PORT),
  TESSERA_LOG_LEVEL: 'warn',
};
const base = `http://127.0.0.1:${RELEASE_10_PORT}`;
const tessera = join(checkout, 'bin/tessera');

const { org_id: orgId, api_key: apiKey } = JSON.parse(execFileSync(tessera, ['admin', 'create-org', '--name', 'upgrade', '--json'], { env, encoding: 'utf8' }));

async function api(
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = { 'service-orgid': orgId, 'service-api-key': apiKey },
): Promise<{ result: any }> {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const answer = (await response.json()) as { result: any };
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(answer)}`);
  return answer;
}

async function person(email: string, roles: string[], password: string) {
  const { result } = await api('POST', '/persons', { handles: [{ type: 'email_address', value: email }], roles, console: true });
  await api('POST', `/persons/${result.id}/credentials`, { type: 'password', params: { password_hash: await policyHash(password) } });
  return result.id as string;
}

const passwordLogin = async (email: string, password: string) =>
  (await api('POST', '/authn/password', { handle: { type: 'email_address', value: email }, password }, { 'service-orgid': orgId })).result.token as string;

/** Release 10's console sign-in: the password, and the code when the person has TOTP; the session cookie it ends with. */
async function consoleSession(email: string, password: string, code?: string): Promise<string> {
  const jar = new Map<string, string>();
  const send = async (path: string, form?: Record<string, string>) => {
    const response = await fetch(`${base}${path}`, {
      method: form ? 'POST' : 'GET',
      redirect: 'manual',
      headers: { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; '), ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
      ...(form ? { body: new URLSearchParams(form).toString() } : {}),
    });
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const [name, value] = pair!.split('=') as [string, string];
      if (value) jar.set(name, value);
      else jar.delete(name);
    }
    return (await response.text()).match(/name="_csrf" value="([^"]*)"/)?.[1] ?? '';
  };
  await send('/console/sign-in', { organization: orgId, email, password, _csrf: await send('/console/sign-in') });
  if (code) await send('/console/sign-in/code', { code, _csrf: await send('/console/sign-in/code') });
  const cookie = jar.get('__Host-tessera-console');
  if (!cookie) throw new Error(`no console session for ${email}`);
  return cookie;
}

async function populate(): Promise<Release10Fixture> {
  await api('PATCH', '/organizations/config', { webauthn_rp_id: RP_ID, webauthn_origins: [ORIGIN] });
  const passwords = { tia: 'tia-correct-horse', kai: 'kai-correct-horse', vic: 'vic-correct-horse', pat: 'pat-correct-horse' };
  // tia: an administrator with a password and TOTP. kai: a password and a passkey. vic: a verifier
  // with a password only. pat: no role, a password only.
  const tia = await person('tia@example.com', ['admin', 'verifier'], passwords.tia);
  const totp = totpImport(4);
  await api('POST', `/persons/${tia}/credentials`, { type: 'totp', params: totp.params });
  const kai = await person('kai@example.com', ['verifier'], passwords.kai);
  await api('POST', `/persons/${kai}/credentials`, { type: 'public-key', params: importParams(new SoftwareAuthenticator()) });
  const vic = await person('vic@example.com', ['verifier'], passwords.vic);
  const pat = await person('pat@example.com', [], passwords.pat);
  const client = (await api('POST', '/oauth2/clients', { client_name: 'integration', grant_types: ['urn:ietf:params:oauth:grant-type:token-exchange'] }))
    .result;

  // The exploit of issue 23: release 10 answers tia's right password with a full JWT (amr pwd).
  const tiaPassword = await passwordLogin('tia@example.com', passwords.tia);
  const form = new URLSearchParams({
    grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
    subject_token: tiaPassword,
    subject_token_type: 'urn:ietf:params:oauth:token-type:jwt',
    requested_token_type: 'urn:ietf:params:oauth:token-type:access_token',
  });
  const exchanged = await fetch(`${base}/oauth2/tokens`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64')}`,
    },
    body: form.toString(),
  }).then((r) => r.json() as Promise<{ access_token: string }>);
  return {
    madeAt: Date.now(),
    issuer: base,
    orgId,
    apiKey,
    persons: { tia, kai, vic, pat },
    passwords,
    tiaRecoveryCodes: totp.recoveryCodes.slice(1),
    client: { id: client.client_id, secret: client.client_secret },
    tokens: {
      tiaPassword,
      tiaMinted: (await api('POST', `/persons/${tia}/mint-token`)).result.token,
      tiaDelegatedOpaque: exchanged.access_token,
      kaiPassword: await passwordLogin('kai@example.com', passwords.kai),
      vicPassword: await passwordLogin('vic@example.com', passwords.vic),
      patPassword: await passwordLogin('pat@example.com', passwords.pat),
    },
    consoleCookies: {
      tia: await consoleSession('tia@example.com', passwords.tia, totp.recoveryCodes[0]),
      kai: await consoleSession('kai@example.com', passwords.kai),
      vic: await consoleSession('vic@example.com', passwords.vic),
    },
    rows: dumpSqlite(join(dir, 'tessera.db')),
  };
}

await makeFixture({ tessera, env, base, dir, name: 'release-10.json', populate });
