import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { backends } from '../helpers/backends.ts';
import { errorCodes, startTestService, type TestOrg, type TestService } from '../helpers/service.ts';

for (const backend of backends()) {
  describe(`Tenant isolation on ${backend.name}`, () => {
    let t: TestService;
    let a: TestOrg;
    let b: TestOrg;
    let personOfB: string;
    let clientOfB: string;
    let keyOfB: string;

    before(async () => {
      t = await startTestService(backend);
      a = await t.org();
      b = await t.org();
      personOfB = (await t.call('POST', '/persons', { as: b, body: { handles: [{ type: 'email_address', value: 'b@example.com' }] } })).body.result.id;
      clientOfB = (await t.call('POST', '/oauth2/clients', { as: b, body: { client_name: 'b', grant_types: ['client_credentials'] } })).body.result.client_id;
      keyOfB = (await t.call('POST', '/organizations/api-keys', { as: b, body: { name: 'second', kind: 'admin' } })).body.result.id;
    });
    after(() => t.close());

    it('answers 404 for every path id of another organisation and leaves it intact', async () => {
      for (const [method, path] of [
        ['GET', `/persons/${personOfB}`],
        ['DELETE', `/persons/${personOfB}`],
        ['GET', `/oauth2/clients/${clientOfB}`],
        ['DELETE', `/oauth2/clients/${clientOfB}`],
        ['POST', `/oauth2/clients/${clientOfB}/secret`],
        ['DELETE', `/organizations/api-keys/${keyOfB}`],
      ] as const) {
        const response = await t.call(method, path, { as: a });
        assert.equal(response.status, 404, `${method} ${path}`);
        assert.deepEqual(errorCodes(response.body), ['NOT_FOUND']);
      }
      assert.equal((await t.call('GET', `/persons/${personOfB}`, { as: b })).status, 200);
      assert.equal((await t.call('GET', `/oauth2/clients/${clientOfB}`, { as: b })).status, 200);
      assert.equal((await t.call('GET', '/organizations/api-keys', { as: b })).body.result.length, 2);
    });

    it("lists only the caller's own rows", async () => {
      await t.call('POST', '/persons', { as: a, body: { handles: [{ type: 'email_address', value: 'a@example.com' }] } });
      const persons = (await t.call('GET', '/persons', { as: a })).body;
      assert.deepEqual(
        persons.result.map((p: { handles: { value: string }[] }) => p.handles[0]!.value),
        ['a@example.com'],
      );
      assert.equal(persons.meta.cursor_pagination.total_count, 1);
      assert.deepEqual((await t.call('GET', '/oauth2/clients', { as: a })).body.result, []);
    });

    it("refuses a key of one organisation presented with another's id (401)", async () => {
      const response = await t.call('GET', '/persons', { as: { 'service-orgid': b.orgId, 'service-api-key': a.apiKey } });
      assert.equal(response.status, 401);
      assert.deepEqual(errorCodes(response.body), ['UNAUTHENTICATED']);
    });

    it('answers 400, 404, 401, 403 in that order of checks', async () => {
      const cases: [Record<string, string>, number, string][] = [
        [{ 'service-api-key': a.apiKey }, 400, 'INVALID_HEADER'],
        [{ 'service-orgid': 'org_unknown', 'service-api-key': a.apiKey }, 404, 'ORGANIZATION_NOT_FOUND'],
        [{ 'service-orgid': a.orgId }, 401, 'UNAUTHENTICATED'],
        [{ 'service-orgid': a.orgId, 'service-api-key': 'tsk_not-a-key' }, 401, 'UNAUTHENTICATED'],
      ];
      for (const [headers, status, code] of cases) {
        const response = await t.call('GET', '/persons', { as: headers });
        assert.equal(response.status, status, JSON.stringify(headers));
        assert.deepEqual(errorCodes(response.body), [code]);
      }
      const integration = (await t.call('POST', '/organizations/api-keys', { as: a, body: { name: 'crm', kind: 'integration' } })).body.result;
      const forbidden = await t.call('POST', '/persons', { as: { 'service-orgid': a.orgId, 'service-api-key': integration.api_key }, body: { handles: [] } });
      assert.equal(forbidden.status, 403);
      assert.deepEqual(errorCodes(forbidden.body), ['FORBIDDEN']);
      assert.equal((await t.call('GET', '/persons', { as: a })).body.meta.cursor_pagination.total_count, 1, 'nothing was written');
    });

    it('checks the key before reading the body: an unauthenticated malformed body is 401, not 400', async () => {
      const response = await t.call('POST', '/persons', { as: { 'service-orgid': a.orgId }, body: '{not json' });
      assert.equal(response.status, 401);
    });

    it('stops honouring a revoked key at once', async () => {
      const second = (await t.call('POST', '/organizations/api-keys', { as: a, body: { name: 'temporary', kind: 'admin' } })).body.result;
      const asSecond = { 'service-orgid': a.orgId, 'service-api-key': second.api_key };
      assert.equal((await t.call('GET', '/persons', { as: asSecond })).status, 200);
      assert.equal((await t.call('DELETE', `/organizations/api-keys/${second.id}`, { as: a })).status, 204);
      assert.equal((await t.call('GET', '/persons', { as: asSecond })).status, 401);
    });
  });
}
