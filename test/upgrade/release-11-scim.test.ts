import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { LATEST_SCHEMA_VERSION } from '../../src/store/migrations/index.ts';
import { type Backend, backends } from '../helpers/backends.ts';
import { startFrozenService } from '../helpers/frozen-service.ts';
import type { TestOrg, TestService } from '../helpers/service.ts';
import { scimCall } from '../scim/scim-helpers.ts';
import { type Door, doorsOf } from '../verification/doors.ts';
import { type Release11ScimFixture, restoreRelease11 } from './release-11-scim.ts';

const fixture: Release11ScimFixture = JSON.parse(readFileSync(new URL('./fixtures/release-11-scim.json', import.meta.url), 'utf8'));
const CORE = 'urn:ietf:params:scim:schemas:core:2.0:User';

/** A database of `backend` holding the identities release 11 stored, and how to drop it. */
async function release11Database(backend: Backend): Promise<{ url: string; drop: () => Promise<void> }> {
  if (backend.name === 'postgres') {
    const database = await backend.fresh();
    await restoreRelease11(database.url, fixture);
    return database;
  }
  const dir = mkdtempSync(join(tmpdir(), 'tessera-upgrade-'));
  const url = `sqlite:${join(dir, 'tessera.db')}`;
  await restoreRelease11(url, fixture);
  return { url, drop: async () => rmSync(dir, { recursive: true, force: true }) };
}

for (const backend of backends()) {
  describe(`Migration 12 on the SCIM identities release 11 stored under the core schema URN (design §6), on ${backend.name}`, () => {
    let t: TestService;
    let door: Door;
    const org: TestOrg = {
      orgId: fixture.orgId,
      apiKey: fixture.apiKey,
      headers: { 'service-orgid': fixture.orgId, 'service-api-key': fixture.apiKey },
    };
    const user = async (name: keyof Release11ScimFixture['users']) => (await scimCall(t.url, fixture.scimToken, 'GET', `/Users/${fixture.users[name]}`)).body;
    const initiate = (name: keyof Release11ScimFixture['users']) =>
      door.initiate({ connection_id: fixture.connectionId, identity_id: fixture.users[name] }).then((answer) => answer.status);

    before(async () => {
      t = await startFrozenService(backend, { at: Date.now() }, { database: await release11Database(backend) });
      door = (await doorsOf(t, org)).doors.find((d) => d.name === 'integration')!;
    });
    after(() => t?.close());

    it('migrates to the latest version and leaves no member keyed by the core URN, in any case', async () => {
      assert.equal(await t.service.store.schemaVersion(), LATEST_SCHEMA_VERSION);
      for (const name of Object.keys(fixture.users) as (keyof Release11ScimFixture['users'])[]) {
        const read = await user(name);
        assert.deepEqual(read.schemas, [CORE], name);
        assert.ok(!Object.keys(read).some((key) => key.toLowerCase() === CORE.toLowerCase()), name);
      }
    });

    it('regression: the deactivations release 11 stored as an extension now hold, and verification cannot start for them', async () => {
      for (const name of ['ada', 'bob', 'dan'] as const) {
        assert.equal((await user(name)).active, false, name);
        assert.equal(await initiate(name), 404, name);
      }
      const stored = await t.service.store.getIdentity(fixture.orgId, fixture.connectionId, fixture.users.ada);
      assert.ok(stored?.deactivatedAt !== null, 'the deactivation is durable');
    });

    it('folds the other core attributes into the User, merging complex ones, and lifts them again for look-ups', async () => {
      const bob = await user('bob');
      assert.equal(bob.displayName, 'Bob B.');
      const cat = await user('cat');
      assert.deepEqual([cat.active, cat.name, cat.emails], [true, { familyName: 'Cole', givenName: 'Cat' }, [{ type: 'work', value: 'cat@new.example' }]]);
      const byEmail = await scimCall(
        t.url,
        fixture.scimToken,
        'GET',
        `/Users?filter=${encodeURIComponent('emails[type eq "work"].value eq "cat@new.example"')}`,
      );
      assert.deepEqual(
        byEmail.body.Resources.map((r: { id: string }) => r.id),
        [fixture.users.cat],
      );
      const eve = await user('eve');
      assert.deepEqual([eve.active, eve.displayName], [true, 'Eve E.']);
      assert.equal(await initiate('eve'), 201);
    });

    it('leaves users without the URN as they were, and makes an earlier deactivation durable', async () => {
      const gil = await user('gil');
      assert.deepEqual([gil.active, gil.emails], [true, [{ type: 'work', value: 'gil@contoso.example' }]]);
      assert.equal(await initiate('gil'), 201);
      const removed = await scimCall(t.url, fixture.scimToken, 'PATCH', `/Users/${fixture.users.hal}`, {
        Operations: [{ op: 'replace', path: 'active', value: null }],
      });
      assert.deepEqual([removed.status, removed.body.active], [200, false], 'hal was deactivated under release 11: removing active does not reactivate');
    });
  });
}
