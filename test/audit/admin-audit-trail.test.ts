import assert from 'node:assert/strict';
import { pbkdf2Sync, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openStore } from '../../src/store/open-store.ts';
import { backends } from '../helpers/backends.ts';
import { runCli } from '../helpers/cli.ts';
import { ConsoleAgent, consolePerson, signInWithPassword } from '../helpers/console.ts';
import { startTestService, type TestOrg, type TestService } from '../helpers/service.ts';

interface Event {
  type: string;
  data: Record<string, unknown>;
}

/** Every audit event of the organisation, oldest first, as GET /audit/events lists them. */
async function eventsOf(t: TestService, org: TestOrg): Promise<Event[]> {
  return (await t.call('GET', '/audit/events?limit=100', { as: org })).body.result;
}

/** The id of the admin key a test organisation was created with, as GET /organizations/api-keys lists it. */
async function firstKeyId(t: TestService, org: TestOrg): Promise<string> {
  return (await t.call('GET', '/organizations/api-keys', { as: org })).body.result[0].id;
}

for (const backend of backends()) {
  describe(`Administrative changes leave an audit trail, on ${backend.name}`, () => {
    let t: TestService;
    before(async () => {
      t = await startTestService(backend);
    });
    after(() => t.close());

    it('creating a person through the API writes person.created naming the API key (regression: admin work left no audit trail)', async () => {
      const org = await t.org();
      const created = await t.call('POST', '/persons', {
        as: org,
        body: { handles: [{ type: 'email_address', value: 'ada@example.com' }], roles: ['verifier'] },
      });
      assert.equal(created.status, 201);
      const events = (await eventsOf(t, org)).filter((e) => e.type === 'person.created');
      assert.deepEqual(
        events.map((e) => e.data),
        [{ person_id: created.body.result.id, roles: ['verifier'], console: false, operator: 'api_key', api_key_id: await firstKeyId(t, org) }],
      );
    });

    it('creating a person in the console writes person.created naming the console person (regression: admin work left no audit trail)', async () => {
      const org = await t.org();
      const admin = await consolePerson(t, org, { roles: ['admin'] });
      const agent = new ConsoleAgent(t.url);
      const { csrf } = await signInWithPassword(agent, org.orgId, admin);
      const answer = await agent.post('/console/admin/persons', { email: 'grace@example.com' }, csrf);
      assert.equal(answer.status, 303, answer.html);
      const id = /(per_[0-9a-z]+)/.exec(answer.location!)![1];
      const events = (await eventsOf(t, org)).filter((e) => e.type === 'person.created' && e.data.person_id === id);
      assert.deepEqual(
        events.map((e) => e.data),
        [{ person_id: id, roles: [], console: false, operator: 'console', console_person_id: admin.id }],
      );
      const page = await agent.get('/console/admin/audit?type=person.created');
      assert.match(page.html, new RegExp(`<dt>console person id</dt> <dd>${admin.id}</dd>`));
    });

    it('a session of admin work over the API leaves one event per change, each naming the key and holding no secret', async () => {
      const org = await t.org();
      const keyId = await firstKeyId(t, org);
      const secrets: string[] = [org.apiKey];
      const changes: [string, number][] = [];
      const expect = async (type: string, call: Promise<{ status: number; body: any }>, status: number) => {
        const answer = await call;
        assert.equal(answer.status, status, `${type}: ${JSON.stringify(answer.body)}`);
        changes.push([type, status]);
        return answer.body?.result;
      };
      const person = await expect(
        'person.created',
        t.call('POST', '/persons', { as: org, body: { handles: [{ type: 'email_address', value: 'p@example.com' }] } }),
        201,
      );
      await expect('person.access_changed', t.call('PATCH', `/persons/${person.id}`, { as: org, body: { roles: ['admin'], console: true } }), 200);
      const salt = randomBytes(16);
      const hash = pbkdf2Sync('correct horse battery staple', salt, 1000, 32, 'sha256').toString('base64').replace(/=+$/, '');
      const passwordHash = `$pbkdf2-sha256$i=1000,l=32$${salt.toString('base64').replace(/=+$/, '')}$${hash}`;
      secrets.push(hash);
      const credential = await expect(
        'credential.created',
        t.call('POST', `/persons/${person.id}/credentials`, { as: org, body: { type: 'password', params: { password_hash: passwordHash } } }),
        201,
      );
      await expect('credential.deleted', t.call('DELETE', `/persons/${person.id}/credentials/${credential.id}`, { as: org }), 204);
      const client = await expect(
        'client.created',
        t.call('POST', '/oauth2/clients', { as: org, body: { client_name: 'c', grant_types: ['client_credentials'] } }),
        201,
      );
      secrets.push(client.client_secret);
      secrets.push((await expect('client.secret_rotated', t.call('POST', `/oauth2/clients/${client.client_id}/secret`, { as: org }), 200)).client_secret);
      await expect('client.deleted', t.call('DELETE', `/oauth2/clients/${client.client_id}`, { as: org }), 204);
      const key = await expect('api_key.created', t.call('POST', '/organizations/api-keys', { as: org, body: { name: 'second', kind: 'admin' } }), 201);
      secrets.push(key.api_key);
      await expect('api_key.revoked', t.call('DELETE', `/organizations/api-keys/${key.id}`, { as: org }), 204);
      const connection = await expect(
        'connection.created',
        t.call('POST', '/organizations/connections', { as: org, body: { name: 'idp', type: 'scim' } }),
        201,
      );
      secrets.push(connection.scim_token);
      secrets.push(
        (await expect('connection.scim_token_rotated', t.call('POST', `/organizations/connections/${connection.id}/scim-token`, { as: org }), 200)).scim_token,
      );
      await expect('connection.deleted', t.call('DELETE', `/organizations/connections/${connection.id}`, { as: org }), 204);
      await expect('organization.config_changed', t.call('PATCH', '/organizations/config', { as: org, body: { token_lifetime_ceiling: 600 } }), 200);
      // A refused change is no change: nothing is written for it. The person is the organisation's
      // last console administrator, whom no door takes away (design §9) until there is another.
      assert.equal((await t.call('DELETE', `/persons/${person.id}`, { as: org })).status, 409);
      await expect('person.created', t.call('POST', '/persons', { as: org, body: { roles: ['admin'], console: true } }), 201);
      await expect('person.deleted', t.call('DELETE', `/persons/${person.id}`, { as: org }), 204);
      assert.equal((await t.call('DELETE', `/persons/${person.id}`, { as: org })).status, 404);
      assert.equal((await t.call('DELETE', `/organizations/api-keys/${keyId}`, { as: org })).status, 409);
      // Nor is a PATCH that sets what is already set.
      assert.equal((await t.call('PATCH', '/organizations/config', { as: org, body: { token_lifetime_ceiling: 600 } })).status, 200);

      const events = await eventsOf(t, org);
      assert.deepEqual(
        events.map((e) => e.type),
        changes.map(([type]) => type),
      );
      for (const event of events) assert.equal(event.data.api_key_id, keyId, `${event.type} names the key`);
      for (const event of events) assert.equal(event.data.operator, 'api_key', `${event.type} names the kind of operator`);
      const text = JSON.stringify(events);
      for (const secret of secrets) assert.ok(!text.includes(secret), 'no secret in the audit log');
      assert.deepEqual(events.find((e) => e.type === 'organization.config_changed')!.data.fields, ['token_lifetime_ceiling']);
    });
  });

  describe(`The CLI's changes name the operating-system user, on ${backend.name}`, () => {
    const directory = mkdtempSync(join(tmpdir(), 'tessera-audit-'));
    after(() => rmSync(directory, { recursive: true, force: true }));

    it('creating an organisation with the CLI writes organization.created naming cli and the OS user (regression: admin work left no audit trail)', async () => {
      const database = backend.name === 'sqlite' ? { url: `sqlite:${join(directory, 'cli.db')}`, drop: async () => {} } : await backend.fresh();
      try {
        const created = await runCli(['admin', 'create-org', '--name', 'Audited', '--json'], { TESSERA_DATABASE: database.url });
        assert.equal(created.code, 0, created.stderr);
        const { org_id } = JSON.parse(created.stdout);
        const { store } = await openStore(database.url);
        try {
          const events = (await store.listAuditEvents(org_id, undefined, { position: { kind: 'first' }, limit: 10 })).items;
          assert.deepEqual(
            events.map((e) => [e.type, e.data.operator, e.data.os_user, e.data.name]),
            [['organization.created', 'cli', userInfo().username, 'Audited']],
          );
        } finally {
          await store.close();
        }
      } finally {
        await database.drop();
      }
    });
  });
}
