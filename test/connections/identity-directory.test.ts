import assert from 'node:assert/strict';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createNetServer, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { type IdentityDirectory, identityDirectory } from '../../src/connections/identity-directory.ts';
import { connectionSecretBox } from '../../src/connections/sealing.ts';
import { backends } from '../helpers/backends.ts';
import { startTestService, TEST_SECRET, type TestOrg, type TestService } from '../helpers/service.ts';
import { type ScimTenant, scimTenant } from '../scim/scim-helpers.ts';

const alan = {
  userName: 'alan@example.com',
  displayName: 'Alan Turing',
  emails: [
    { type: 'home', value: 'alan@home.example' },
    { type: 'work', value: 'Alan@Example.com', primary: true },
  ],
};
const unavailable = (e: unknown) =>
  (e as { code?: string; status?: number }).code === 'IDENTITY_SOURCE_UNAVAILABLE' && (e as { status: number }).status === 503;

async function listen(server: Server | ReturnType<typeof createNetServer>): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as { port: number }).port}/scim/v2`;
}

for (const backend of backends()) {
  describe(`Identity directory on ${backend.name}`, () => {
    let t: TestService;
    let provider: TestService;
    let directory: IdentityDirectory;
    let org: TestOrg;
    before(async () => {
      // TESSERA_DEV=1: the provider below is plain http on loopback.
      t = await startTestService(backend, { TESSERA_DEV: '1' });
      provider = await startTestService(backend);
      directory = identityDirectory(t.service.store, connectionSecretBox(TEST_SECRET), { timeoutMs: 500, allowLoopback: true });
      org = await t.org();
    });
    after(async () => {
      await t.close();
      await provider.close();
    });

    describe('type scim (pushed)', () => {
      let tenant: ScimTenant;
      let id: string;
      before(async () => {
        tenant = await scimTenant(t, org);
        id = (await tenant.call('POST', '/Users', alan)).body.id;
      });

      it('finds an identity by id and by its work email in any case, with the email as sent', async () => {
        // Alan was pushed without `active`: the directory says so, and isActive reads it as active (never deactivated).
        const expected = { identityId: id, email: 'Alan@Example.com', active: null, deactivatedBefore: false, displayName: 'Alan Turing' };
        assert.deepEqual(await directory.lookup(org.orgId, tenant.connectionId, { identityId: id }), expected);
        assert.deepEqual(await directory.lookup(org.orgId, tenant.connectionId, { email: 'alan@EXAMPLE.com' }), expected);
        assert.equal(await directory.lookup(org.orgId, tenant.connectionId, { email: 'alan@home.example' }), undefined);
      });

      it('answers undefined for another organisation, an unknown connection or id', async () => {
        const other = await t.org();
        assert.equal(await directory.lookup(other.orgId, tenant.connectionId, { identityId: id }), undefined);
        assert.equal(await directory.lookup(org.orgId, 'con_unknown', { identityId: id }), undefined);
        assert.equal(await directory.lookup(org.orgId, tenant.connectionId, { identityId: 'idn_unknown' }), undefined);
      });

      it('sees a deactivation (Okta) as inactive and a deletion as gone', async () => {
        await tenant.call('PATCH', `/Users/${id}`, {
          schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
          Operations: [{ op: 'replace', value: { active: false } }],
        });
        assert.equal((await directory.lookup(org.orgId, tenant.connectionId, { identityId: id }))?.active, false);
        assert.equal((await tenant.call('DELETE', `/Users/${id}`)).status, 204);
        assert.equal(await directory.lookup(org.orgId, tenant.connectionId, { identityId: id }), undefined);
        assert.equal(await directory.lookup(org.orgId, tenant.connectionId, { email: 'alan@example.com' }), undefined);
      });
    });

    describe('type scim_pull (read live from another Tessera organisation)', () => {
      let source: ScimTenant;
      let connectionId: string;
      let id: string;
      const pullConnection = async (base_url: string, bearer_token: string) => {
        const created = await t.call('POST', '/organizations/connections', {
          as: org,
          body: { name: `pull-${Math.random()}`, type: 'scim_pull', base_url, bearer_token },
        });
        assert.equal(created.status, 201, JSON.stringify(created.body));
        return created.body.result.id as string;
      };
      before(async () => {
        source = await scimTenant(provider);
        id = (await source.call('POST', '/Users', alan)).body.id;
        connectionId = await pullConnection(`${provider.url}/scim/v2`, source.token);
      });

      it('reads an identity by id and by email from the provider', async () => {
        const expected = { identityId: id, email: 'Alan@Example.com', active: true, deactivatedBefore: false, displayName: 'Alan Turing' };
        assert.deepEqual(await directory.lookup(org.orgId, connectionId, { identityId: id }), expected);
        assert.deepEqual(await directory.lookup(org.orgId, connectionId, { email: 'ALAN@example.com' }), expected);
        assert.equal(await directory.lookup(org.orgId, connectionId, { identityId: 'idn_unknown' }), undefined);
        assert.equal(await directory.lookup(org.orgId, connectionId, { email: 'nobody@example.com' }), undefined);
      });

      it('sees a deactivation and a removal at the provider at once, with nothing pushed to us', async () => {
        await source.call('PATCH', `/Users/${id}`, {
          schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
          Operations: [{ op: 'Replace', path: 'active', value: 'False' }],
        });
        assert.equal((await directory.lookup(org.orgId, connectionId, { identityId: id }))?.active, false);
        assert.equal((await source.call('DELETE', `/Users/${id}`)).status, 204);
        assert.equal(await directory.lookup(org.orgId, connectionId, { identityId: id }), undefined);
        assert.equal(await directory.lookup(org.orgId, connectionId, { email: 'alan@example.com' }), undefined);
      });

      it('fails closed when the provider refuses the token', async () => {
        const refused = await pullConnection(`${provider.url}/scim/v2`, 'tscim_wrong');
        await assert.rejects(directory.lookup(org.orgId, refused, { identityId: id }), unavailable);
      });

      it('fails closed on a provider that never answers, within the timeout', async () => {
        const sockets: Socket[] = [];
        const silent = createNetServer((socket) => sockets.push(socket));
        const connection = await pullConnection(await listen(silent), 'token');
        const started = Date.now();
        await assert.rejects(directory.lookup(org.orgId, connection, { email: 'alan@example.com' }), unavailable);
        assert.ok(Date.now() - started < 2000, 'bounded by the timeout');
        for (const socket of sockets) socket.destroy();
        silent.close();
      });

      for (const [what, status, body] of [
        ['a 500', 500, '{"status":"500"}'],
        ['a body that is not JSON', 200, '<html>'],
        ['JSON that is not a User', 200, '{"hello":"world"}'],
      ] as const) {
        it(`fails closed on ${what}`, async () => {
          const broken = createHttpServer((_request, response) => response.writeHead(status, { 'content-type': 'application/json' }).end(body));
          const connection = await pullConnection(await listen(broken), 'token');
          await assert.rejects(directory.lookup(org.orgId, connection, { identityId: 'idn_x' }), unavailable);
          await assert.rejects(directory.lookup(org.orgId, connection, { email: 'alan@example.com' }), unavailable);
          broken.close();
        });
      }
    });
  });
}
