import { join } from 'node:path';
import { runCliJson } from './lib/cli.ts';
import { boundGoal, type Goal, goalsTable } from './lib/goals.ts';
import { load } from './lib/load.ts';
import { scratchDirectory } from './lib/scratch.ts';
import { startServiceProcess } from './lib/service-process.ts';

/** Issue 14: 20 people signed in at once, each with a session of their own. */
const SESSIONS = 20;
const PAGES = [
  '/console/sign-in',
  '/console/verify',
  '/console/security',
  '/console/admin',
  '/console/admin/persons',
  '/console/admin/connections',
  '/console/admin/clients',
  '/console/admin/api-keys',
  '/console/admin/organization',
  '/console/admin/audit',
];
const WARM_UP_SECONDS = 1;

/** What a browser downloads for a page it has never seen: the HTML and every asset it references. */
async function firstLoadBytes(base: string, path: string, cookie: string): Promise<number> {
  const page = await fetch(`${base}${path}`, { headers: { cookie } });
  const html = await page.text();
  if (page.status !== 200) throw new Error(`GET ${path}: ${page.status} ${html.slice(0, 200)}`);
  let bytes = Buffer.byteLength(html);
  for (const [, asset] of html.matchAll(/(?:src|href)="(\/console\/assets\/[^"]+)"/g)) {
    bytes += (await (await fetch(`${base}${asset}`)).arrayBuffer()).byteLength;
  }
  return bytes;
}

/** Signs a console person in with their password over HTTP, as a form would; the session cookie. */
async function signIn(base: string, orgId: string, email: string, password: string): Promise<string> {
  const form = await fetch(`${base}/console/sign-in`);
  const anonymous = form.headers.getSetCookie()[0]!.split(';')[0]!;
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await form.text())![1]!;
  const answer = await fetch(`${base}/console/sign-in`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie: anonymous, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ _csrf: csrf, organization: orgId, email, password }).toString(),
  });
  if (answer.status !== 303) throw new Error(`sign-in of ${email}: ${answer.status}`);
  return answer.headers
    .getSetCookie()
    .find((c) => c.includes('tessera-console='))!
    .split(';')[0]!;
}

/**
 * Every console page at 20 concurrent sessions on SQLite: req/s and latency p99 (the server's
 * time plus loopback), and the bytes of a first load (HTML and every script and style it names,
 * uncompressed). The sessions are 20 persons holding verifier and admin, signed in by password
 * before the runs; each request carries one of their cookies in turn (the sign-in page's none).
 */
export async function consoleBenchmark(options: { seconds: number }): Promise<string> {
  const file = `sqlite:${join(scratchDirectory('tessera-bench-console-'), 'bench.db')}`;
  const env = { TESSERA_DATABASE: file };
  const { org_id, api_key } = await runCliJson(['admin', 'create-org', '--name', 'bench-console', '--json'], env);
  const service = await startServiceProcess(env);
  try {
    const admin = { 'service-orgid': org_id, 'service-api-key': api_key, 'content-type': 'application/json' };
    const api = async (path: string, body: unknown) => {
      const response = await fetch(`${service.url}${path}`, { method: 'POST', headers: admin, body: JSON.stringify(body) });
      if (!response.ok) throw new Error(`POST ${path}: ${response.status} ${await response.text()}`);
      return ((await response.json()) as { result: { id: string } }).result;
    };
    // One argon2id hash, shared by every bench person: hashing is the sign-in's cost, not the pages'.
    const password = 'bench console password';
    const { hashPassword, HashWorkPool } = await import('../src/methods/password/index.ts');
    const pool = new HashWorkPool({ concurrency: 1 });
    const hash = await hashPassword(password, pool);
    await pool.close();
    const cookies: string[] = [];
    for (let i = 0; i < SESSIONS; i++) {
      const email = `bench${i}@example.com`;
      const person = await api('/persons', { handles: [{ type: 'email_address', value: email }], roles: ['verifier', 'admin'], console: true });
      await api(`/persons/${person.id}/credentials`, { type: 'password', params: { password_hash: hash } });
      cookies.push(await signIn(service.url, org_id, email, password));
    }
    await api('/organizations/connections', { name: 'bench directory', type: 'scim' });
    // Passkeys on, so the pages that offer a ceremony load the WebAuthn bundle as they would in use.
    const config = await fetch(`${service.url}/organizations/config`, {
      method: 'PATCH',
      headers: admin,
      body: JSON.stringify({ webauthn_rp_id: 'localhost', webauthn_origins: ['http://localhost:8080'] }),
    });
    if (!config.ok) throw new Error(`PATCH /organizations/config: ${config.status} ${await config.text()}`);

    let turn = 0;
    const rows: string[] = [];
    const goals: Goal[] = [];
    for (const path of PAGES) {
      // The sign-in page is for browsers without a session (a signed-in one is sent on to its home page).
      const anonymous = path === '/console/sign-in';
      const bytes = await firstLoadBytes(service.url, path, anonymous ? '' : cookies[0]!);
      const run = (seconds: number) =>
        load({
          name: path,
          url: `${service.url}${path}`,
          connections: SESSIONS,
          seconds,
          ...(anonymous ? {} : { perRequestHeaders: () => ({ cookie: cookies[turn++ % SESSIONS]! }) }),
        });
      await run(WARM_UP_SECONDS);
      const result = await run(options.seconds);
      rows.push(`| ${path} | ${(bytes / 1024).toFixed(1)} | ${result.rps} | ${result.p50} | ${result.p99} | ${result.non2xx} |`);
      goals.push(boundGoal(`${path}: first load`, bytes / 1024, 'KiB', 'below', 100), boundGoal(`${path}: p99`, result.p99, 'ms', 'below', 20));
    }
    return [
      `SQLite, ${SESSIONS} sessions, ${SESSIONS} connections, ${options.seconds} s per page after ${WARM_UP_SECONDS} s of warm-up.`,
      '',
      '| page | first load KiB | req/s | p50 ms | p99 ms | non-2xx |',
      '|---|---:|---:|---:|---:|---:|',
      ...rows,
      '',
      goalsTable(goals),
    ].join('\n');
  } finally {
    await service.stop();
  }
}
