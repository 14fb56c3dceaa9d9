import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { newId } from '../../src/crypto/ids.ts';
import { SoftwareAuthenticator } from '../../src/dev/software-authenticator.ts';
import { publicKeyCredentialType } from '../../src/methods/passkey/type.ts';
import { createOrganization } from '../../src/organizations/create-organization.ts';
import { newPerson } from '../../src/persons/operations.ts';
import { migrate } from '../../src/store/migrate.ts';
import { LATEST_SCHEMA_VERSION, migrationsFor } from '../../src/store/migrations/index.ts';
import { PostgresDriver } from '../../src/store/postgres/postgres-driver.ts';
import type { SqlDriver, SqlParam } from '../../src/store/sql-driver.ts';
import { sqlStore } from '../../src/store/sql-store.ts';
import { SqliteDriver } from '../../src/store/sqlite/sqlite-driver.ts';
import { type Backend, backends } from '../helpers/backends.ts';
import { startFrozenService } from '../helpers/frozen-service.ts';
import { errorCodes, type TestOrg, type TestService } from '../helpers/service.ts';
import { configurePasskeys, importParams, passkeyLogin } from '../methods/passkey/passkeys.ts';

/** The last schema version before a passkey's credential id was the organisation's once. */
const BEFORE = 13;

const driverOf = (url: string): SqlDriver => (url.startsWith('sqlite:') ? new SqliteDriver(url.slice('sqlite:'.length)) : new PostgresDriver(url, {}));

async function query<Row>(url: string, sql: string, params: SqlParam[] = []): Promise<Row[]> {
  const driver = driverOf(url);
  try {
    return await driver.all<Row>(sql, params);
  } finally {
    await driver.close();
  }
}

/** An empty database of `backend` on a file (SQLite's in-memory one would not outlive its first opening). */
async function emptyDatabase(backend: Backend): Promise<{ url: string; drop: () => Promise<void> }> {
  if (backend.name === 'postgres') return backend.fresh();
  const dir = mkdtempSync(join(tmpdir(), 'tessera-migration-14-'));
  return { url: `sqlite:${join(dir, 'tessera.db')}`, drop: async () => rmSync(dir, { recursive: true, force: true }) };
}

interface Planted {
  org: TestOrg;
  persons: { ada: string; bo: string; cy: string; dee: string };
  emails: { ada: string; bo: string; cy: string; dee: string };
  /** ada's, bo's and cy's credential ids (crd_…) of the one passkey, oldest first. */
  copies: string[];
}

/**
 * A database at schema 13 in which one passkey is held by three persons of an organisation (as
 * releases before 14 let happen: registered for two, imported for a third) and by a person of
 * another organisation. Written with the store for what it could write, then the copies as rows.
 */
async function plantCopies(url: string, authenticator: SoftwareAuthenticator): Promise<Planted> {
  const driver = driverOf(url);
  try {
    await migrate(
      driver,
      migrationsFor(driver.dialect).filter((m) => m.version <= BEFORE),
    );
    const store = sqlStore(driver);
    const { org, apiKey } = await createOrganization(store, 'copies');
    const { org: elsewhere } = await createOrganization(store, 'elsewhere');
    const emails = { ada: 'ada@copies.example', bo: 'bo@copies.example', cy: 'cy@copies.example', dee: 'dee@copies.example' };
    const person = async (email: string, orgId = org.id) => {
      const created = newPerson(orgId, { handles: [{ type: 'email_address', value: email }] });
      await store.createPerson(created);
      return created.id;
    };
    const persons = { ada: await person(emails.ada), bo: await person(emails.bo), cy: await person(emails.cy), dee: await person(emails.dee) };
    const stranger = await person('stranger@elsewhere.example', elsewhere.id);
    const { params } = await publicKeyCredentialType.prepare(importParams(authenticator), {} as never);
    const copies: string[] = [];
    const at = Date.now() - 60_000;
    for (const [i, [orgId, personId]] of [
      [org.id, persons.ada],
      [org.id, persons.bo],
      [org.id, persons.cy],
      [elsewhere.id, stranger],
    ].entries()) {
      const id = newId('crd', at + i * 1_000);
      await driver.run(
        `INSERT INTO credentials (id, org_id, person_id, type, label, params, secret, version, last_used, created_at)
         VALUES ($1, $2, $3, 'public-key', NULL, $4, NULL, 0, NULL, $5)`,
        [id, orgId!, personId!, JSON.stringify(params), at + i * 1_000],
      );
      if (orgId === org.id) copies.push(id);
    }
    return { org: { orgId: org.id, apiKey, headers: { 'service-orgid': org.id, 'service-api-key': apiKey } }, persons, emails, copies };
  } finally {
    await driver.close();
  }
}

for (const backend of backends()) {
  describe(`Migration 14 over a passkey several persons hold (W3C WebAuthn §7.1 step 26), on ${backend.name}`, () => {
    const authenticator = new SoftwareAuthenticator();
    let database: { url: string; drop: () => Promise<void> };
    let planted: Planted;
    let t: TestService;
    before(async () => {
      database = await emptyDatabase(backend);
      planted = await plantCopies(database.url, authenticator);
      t = await startFrozenService(backend, { at: Date.now() }, { database });
      await configurePasskeys(t, planted.org);
    });
    after(() => t?.close());

    const importFor = (personId: string) =>
      t.call('POST', `/persons/${personId}/credentials`, { as: planted.org, body: { type: 'public-key', params: importParams(authenticator) } });
    const passkeysOf = async (personId: string) =>
      (await t.call('GET', `/persons/${personId}/credentials`, { as: planted.org })).body.result.filter((c: { type: string }) => c.type === 'public-key');

    it('does not fail on the copies: it migrates, keeps every copy, and marks all but the oldest of each organisation', async () => {
      assert.equal(await t.service.store.schemaVersion(), LATEST_SCHEMA_VERSION);
      const rows = await query<{ id: string; org_id: string; passkey_duplicate: unknown }>(
        database.url,
        "SELECT id, org_id, passkey_duplicate FROM credentials WHERE type = 'public-key' ORDER BY id",
      );
      assert.deepEqual(
        rows.map((row) => [row.id, row.org_id === planted.org.orgId, Boolean(Number(row.passkey_duplicate))]),
        [
          [planted.copies[0], true, false],
          [planted.copies[1], true, true],
          [planted.copies[2], true, true],
          [rows[3]!.id, false, false],
        ],
        'the other organisation’s is its own, not a copy',
      );
      for (const personId of [planted.persons.ada, planted.persons.bo, planted.persons.cy]) assert.equal((await passkeysOf(personId)).length, 1);
    });

    it('leaves a marked copy usable: its person still logs in with it', async () => {
      const loggedIn = await passkeyLogin(t, planted.org, planted.emails.bo, authenticator);
      assert.deepEqual([loggedIn.status, loggedIn.body.result?.person_id], [200, planted.persons.bo], JSON.stringify(loggedIn.body));
    });

    it('refuses the passkey for a fourth person while any copy is left, a marked one too; the database itself refuses a second row of a credential id', async () => {
      const refused = await importFor(planted.persons.dee);
      assert.deepEqual([refused.status, errorCodes(refused.body)], [409, ['PASSKEY_ALREADY_REGISTERED']]);
      const [ada] = await passkeysOf(planted.persons.ada);
      assert.equal((await t.call('DELETE', `/persons/${planted.persons.ada}/credentials/${ada.id}`, { as: planted.org })).status, 204);
      const stillRefused = await importFor(planted.persons.dee);
      assert.deepEqual([stillRefused.status, errorCodes(stillRefused.body)], [409, ['PASSKEY_ALREADY_REGISTERED']], 'bo’s and cy’s marked copies are found');

      // Another passkey, written as a replica of release 13 would write it (no look-up): the
      // index refuses its second row all the same.
      const { params } = await publicKeyCredentialType.prepare(importParams(new SoftwareAuthenticator()), {} as never);
      const insert = (personId: string) =>
        query(
          database.url,
          `INSERT INTO credentials (id, org_id, person_id, type, label, params, secret, version, last_used, created_at)
           VALUES ($1, $2, $3, 'public-key', NULL, $4, NULL, 0, NULL, $5)`,
          [newId('crd'), planted.org.orgId, personId, JSON.stringify(params), Date.now()],
        );
      await insert(planted.persons.dee);
      await assert.rejects(insert(planted.persons.ada), (error: Error) =>
        /credentials_one_passkey_per_org/.test(`${error.message} ${(error.cause as Error | undefined)?.message}`),
      );
    });

    it('lets the passkey be imported again once every copy is deleted', async () => {
      for (const personId of [planted.persons.bo, planted.persons.cy]) {
        for (const credential of await passkeysOf(personId)) {
          assert.equal((await t.call('DELETE', `/persons/${personId}/credentials/${credential.id}`, { as: planted.org })).status, 204);
        }
      }
      assert.equal((await importFor(planted.persons.dee)).status, 201);
    });
  });
}
