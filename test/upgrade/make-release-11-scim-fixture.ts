/**
 * Makes test/upgrade/fixtures/release-11-scim.json: the SCIM identities release 11 (schema
 * version 11) stored when a provider named core attributes by the core schema URN, which that
 * release kept as an extension keyed by the URN (issue 24 item 3), for
 * test/upgrade/release-11-scim.test.ts. It drives that release's own service and CLI over HTTP,
 * then dumps the rows of its SQLite file, so nothing in the fixture is written by this release's
 * code. Run it once, from this checkout, against a checkout of release 11:
 *
 *   git worktree add /tmp/release11 097819c && ln -s "$PWD/node_modules" /tmp/release11/node_modules
 *   ./node_modules/.bin/node test/upgrade/make-release-11-scim-fixture.ts /tmp/release11
 *
 * The secrets in the fixture (the SCIM token, the API key) are test values only.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TEST_SECRET } from '../helpers/service.ts';
import type { Release11ScimFixture } from './release-11-scim.ts';
import { dumpSqlite, makeFixture } from './release-fixtures.ts';

const checkout = process.argv[2];
if (!checkout) throw new Error('usage: make-release-11-scim-fixture.ts <checkout of release 11>');
const port = 18391;
const dir = mkdtempSync(join(tmpdir(), 'tessera-release-11-'));
const env = {
  ...process.env,
  TESSERA_DATABASE: `sqlite:${join(dir, 'tessera.db')}`,
  TESSERA_SECRET: TEST_SECRET,
  TESSERA_DEV: '0',
  TESSERA_PORT: String(port),
  TESSERA_LOG_LEVEL: 'warn',
};
const base = `http://127.0.0.1:${port}`;
const tessera = join(checkout, 'bin/tessera');
const CORE = 'urn:ietf:params:scim:schemas:core:2.0:User';

const { org_id: orgId, api_key: apiKey } = JSON.parse(execFileSync(tessera, ['admin', 'create-org', '--name', 'upgrade', '--json'], { env, encoding: 'utf8' }));

async function call(method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<any> {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const answer = await response.json();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(answer)}`);
  return answer;
}

async function populate(): Promise<Release11ScimFixture> {
  const connection = (
    await call('POST', '/organizations/connections', { 'service-orgid': orgId, 'service-api-key': apiKey }, { name: 'Contoso', type: 'scim' })
  ).result;
  const scim = (method: string, path: string, body?: unknown) => call(method, `/scim/v2${path}`, { authorization: `Bearer ${connection.scim_token}` }, body);
  const user = async (name: string) =>
    (await scim('POST', '/Users', { userName: `${name}@contoso.example`, active: true, emails: [{ type: 'work', value: `${name}@contoso.example` }] }))
      .id as string;
  const patch = (id: string, ...Operations: unknown[]) => scim('PATCH', `/Users/${id}`, { Operations });

  // ada: deactivated by the fully qualified path; release 11 kept {"active": false} under the URN.
  const ada = await user('ada');
  await patch(ada, { op: 'replace', path: `${CORE}:active`, value: false });
  // bob: a path-less PATCH whose value holds the core URN object, a member in another case.
  const bob = await user('bob');
  await patch(bob, { op: 'replace', value: { [CORE]: { displayName: 'Bob B.', Active: false } } });
  // cat: a PUT whose body holds the core URN object: a new work email and a given name.
  const cat = await user('cat');
  await scim('PUT', `/Users/${cat}`, {
    userName: 'cat@contoso.example',
    name: { familyName: 'Cole' },
    emails: [{ type: 'work', value: 'cat@contoso.example' }],
    [CORE]: { name: { givenName: 'Cat' }, emails: [{ type: 'work', value: 'cat@new.example' }] },
  });
  // dan: the URN in upper case, and a value that is no boolean.
  const dan = await user('dan');
  await patch(dan, { op: 'replace', path: `${CORE.toUpperCase()}:ACTIVE`, value: 'no' });
  // eve: the URN path for displayName only; she stays active.
  const eve = await user('eve');
  await patch(eve, { op: 'replace', path: `${CORE}:displayName`, value: 'Eve E.' });
  // gil: untouched, and an ordinary deactivation for comparison.
  const gil = await user('gil');
  const hal = await user('hal');
  await patch(hal, { op: 'replace', path: 'active', value: false });
  return {
    orgId,
    apiKey,
    connectionId: connection.id,
    scimToken: connection.scim_token,
    users: { ada, bob, cat, dan, eve, gil, hal },
    rows: dumpSqlite(join(dir, 'tessera.db')),
  };
}

await makeFixture({ tessera, env, base, dir, name: 'release-11-scim.json', populate });
