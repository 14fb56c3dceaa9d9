import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { newId } from '../../src/crypto/ids.ts';
import type { OpaqueToken } from '../../src/store/types.ts';
import { backends } from '../helpers/backends.ts';
import { errorCodes, type Response, startTestService, type TestOrg, type TestService } from '../helpers/service.ts';
import { type FaultableDatabase, faultableDatabase } from '../store/revocation-fault.ts';

/**
 * The database refuses to revoke tokens (a real trigger, see revocation-fault.ts) while a
 * DELETE runs: the caller must get a 5xx in the envelope and nothing may have changed.
 */
for (const backend of backends()) {
  describe(`DELETE of a person or client when revoking its tokens fails, on ${backend.name}`, () => {
    let database: FaultableDatabase;
    let t: TestService;
    let org: TestOrg;

    before(async () => {
      database = await faultableDatabase(backend);
      t = await startTestService(database.asBackend());
      org = await t.org();
    });
    after(async () => {
      await t.close();
      await database.drop();
    });

    const issueToken = async (party: { subject: string; clientId: string }): Promise<OpaqueToken> => {
      const token: OpaqueToken = {
        hash: newId('h'),
        orgId: org.orgId,
        ...party,
        scope: '',
        audience: [],
        resource: [],
        act: null,
        mayAct: null,
        parentHash: null,
        issuedAt: Date.now(),
        expiresAt: Date.now() + 600_000,
        revokedAt: null,
        personGeneration: null,
      };
      await t.service.store.insertToken(token);
      return token;
    };

    const deleteWhileRevocationFails = async (path: string) => {
      await database.breakRevocation();
      try {
        return await t.call('DELETE', path, { as: org });
      } finally {
        await database.mendRevocation();
      }
    };

    const assertInternalError = (response: Response) => {
      assert.equal(response.status, 500);
      assert.deepEqual(errorCodes(response.body), ['INTERNAL_ERROR']);
      assert.deepEqual(response.body.errors, [{ httpcode: 500, code: 'INTERNAL_ERROR', message: 'an unexpected error occurred; it has been logged' }]);
      assert.equal(response.body.result, undefined);
    };

    it('regression: a fault between delete and revoke left live tokens for a deleted person', async () => {
      const created = await t.call('POST', '/persons', { as: org, body: { handles: [{ type: 'email_address', value: 'kept@example.com' }] } });
      const personId: string = created.body.result.id;
      const token = await issueToken({ subject: personId, clientId: 'cli_gateway' });

      assertInternalError(await deleteWhileRevocationFails(`/persons/${personId}`));
      assert.deepEqual((await t.call('GET', `/persons/${personId}`, { as: org })).body.result, created.body.result, 'the person is still there');
      assert.equal((await t.service.store.findToken(token.hash))?.revokedAt, null, 'and their token still works');
      const again = await t.call('POST', '/persons', { as: org, body: { handles: [{ type: 'email_address', value: 'kept@example.com' }] } });
      assert.equal(again.status, 409, 'their handle is still taken');

      assert.equal((await t.call('DELETE', `/persons/${personId}`, { as: org })).status, 204, 'the retry succeeds');
      assert.notEqual((await t.service.store.findToken(token.hash))?.revokedAt, null);
    });

    it('regression: a fault between delete and revoke left live tokens for a deleted client', async () => {
      const created = await t.call('POST', '/oauth2/clients', { as: org, body: { client_name: 'kept', grant_types: ['client_credentials'] } });
      const clientId: string = created.body.result.client_id;
      const token = await issueToken({ subject: clientId, clientId });

      assertInternalError(await deleteWhileRevocationFails(`/oauth2/clients/${clientId}`));
      assert.equal((await t.call('GET', `/oauth2/clients/${clientId}`, { as: org })).status, 200, 'the client is still there');
      assert.equal((await t.service.store.findToken(token.hash))?.revokedAt, null, 'and its token still works');

      assert.equal((await t.call('DELETE', `/oauth2/clients/${clientId}`, { as: org })).status, 204, 'the retry succeeds');
      assert.notEqual((await t.service.store.findToken(token.hash))?.revokedAt, null);
    });
  });
}
