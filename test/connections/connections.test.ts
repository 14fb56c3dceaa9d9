import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { backends } from '../helpers/backends.ts';
import { errorCodes, startTestService, type TestOrg, type TestService } from '../helpers/service.ts';
import { scimCall } from '../scim/scim-helpers.ts';

const user = { schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'], userName: 'ada@example.com', emails: [{ type: 'work', value: 'ada@example.com' }] };

for (const backend of backends()) {
  describe(`Identity connections on ${backend.name}`, () => {
    let t: TestService;
    let org: TestOrg;
    before(async () => {
      t = await startTestService(backend, { TESSERA_DEV: '1' });
      org = await t.org();
    });
    after(() => t.close());

    const create = (body: unknown, as: TestOrg = org) => t.call('POST', '/organizations/connections', { as, body });

    it('creates a scim connection whose token is shown once and works at /scim/v2', async () => {
      const created = await create({ name: 'Entra', type: 'scim' });
      assert.equal(created.status, 201);
      const { id, name, type, scim_token, scim_url, created_at } = created.body.result;
      assert.deepEqual([name, type, scim_url], ['Entra', 'scim', `${t.url}/scim/v2`]);
      assert.match(id, /^con_/);
      assert.match(scim_token, /^tscim_/);
      assert.ok(!Number.isNaN(Date.parse(created_at)));
      assert.equal((await scimCall(t.url, scim_token, 'GET', '/Users')).status, 200);
      const read = await t.call('GET', `/organizations/connections/${id}`, { as: org });
      assert.deepEqual(read.body.result, { id, name, type, scim_url, created_at });
    });

    it('creates a scim_pull connection and never shows its bearer token back', async () => {
      const secret = 'provider-secret-token-value';
      const created = await create({ name: 'Okta pull', type: 'scim_pull', base_url: 'http://127.0.0.1:9/scim/v2/', bearer_token: secret });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      assert.equal(created.body.result.base_url, 'http://127.0.0.1:9/scim/v2');
      assert.equal(created.body.result.scim_token, undefined);
      const listed = await t.call('GET', '/organizations/connections?limit=100', { as: org });
      const read = await t.call('GET', `/organizations/connections/${created.body.result.id}`, { as: org });
      const events = await t.call('GET', '/audit/events?type=connection.created', { as: org });
      for (const response of [created, listed, read, events]) assert.ok(!JSON.stringify(response.body).includes(secret));
      const rotate = await t.call('POST', `/organizations/connections/${created.body.result.id}/scim-token`, { as: org });
      assert.deepEqual(errorCodes(rotate.body), ['CONFLICT']);
    });

    it('lists with cursor pagination', async () => {
      const own = await t.org();
      for (const name of ['a', 'b', 'c']) assert.equal((await create({ name, type: 'scim' }, own)).status, 201);
      const first = await t.call('GET', '/organizations/connections?limit=2', { as: own });
      assert.deepEqual(
        first.body.result.map((c: { name: string }) => c.name),
        ['a', 'b'],
      );
      assert.equal(first.body.meta.cursor_pagination.total_count, 3);
      const next = await t.call('GET', `/organizations/connections?limit=2&cursor=${first.body.meta.cursor_pagination.next_cursor}`, { as: own });
      assert.deepEqual(
        next.body.result.map((c: { name: string }) => c.name),
        ['c'],
      );
      assert.ok(!JSON.stringify(first.body).includes('scim_token'));
    });

    it('rotates a scim token: the old one stops working at once', async () => {
      const { id, scim_token: old } = (await create({ name: 'rotating', type: 'scim' })).body.result;
      const rotated = await t.call('POST', `/organizations/connections/${id}/scim-token`, { as: org });
      assert.equal(rotated.status, 200);
      assert.equal((await scimCall(t.url, old, 'GET', '/Users')).status, 401);
      assert.equal((await scimCall(t.url, rotated.body.result.scim_token, 'GET', '/Users')).status, 200);
      const events = await t.call('GET', '/audit/events?type=connection.scim_token_rotated', { as: org });
      assert.ok(events.body.result.some((e: { data: { connection_id: string } }) => e.data.connection_id === id));
      assert.ok(!JSON.stringify(events.body).includes(rotated.body.result.scim_token));
    });

    it('deletes a connection with its identities; its token stops working', async () => {
      const { id, scim_token } = (await create({ name: 'deleted', type: 'scim' })).body.result;
      const pushed = await scimCall(t.url, scim_token, 'POST', '/Users', user);
      assert.equal(pushed.status, 201);
      assert.equal((await t.call('DELETE', `/organizations/connections/${id}`, { as: org })).status, 204);
      assert.equal(await t.service.store.getIdentity(org.orgId, id, pushed.body.id), undefined);
      assert.equal((await scimCall(t.url, scim_token, 'GET', '/Users')).status, 401);
      assert.deepEqual(errorCodes((await t.call('DELETE', `/organizations/connections/${id}`, { as: org })).body), ['NOT_FOUND']);
      assert.deepEqual(errorCodes((await t.call('GET', `/organizations/connections/${id}`, { as: org })).body), ['NOT_FOUND']);
      const events = await t.call('GET', '/audit/events?type=connection.deleted', { as: org });
      assert.ok(events.body.result.some((e: { data: { connection_id: string } }) => e.data.connection_id === id));
    });

    it("does not show or change another organisation's connection", async () => {
      const { id } = (await create({ name: 'private', type: 'scim' })).body.result;
      const other = await t.org();
      assert.deepEqual(errorCodes((await t.call('GET', `/organizations/connections/${id}`, { as: other })).body), ['NOT_FOUND']);
      assert.deepEqual(errorCodes((await t.call('DELETE', `/organizations/connections/${id}`, { as: other })).body), ['NOT_FOUND']);
      assert.deepEqual(errorCodes((await t.call('POST', `/organizations/connections/${id}/scim-token`, { as: other })).body), ['NOT_FOUND']);
    });

    it('refuses a duplicate name with 409 and an integration key with 403', async () => {
      assert.equal((await create({ name: 'twice', type: 'scim' })).status, 201);
      assert.deepEqual(errorCodes((await create({ name: 'twice', type: 'scim' })).body), ['CONFLICT']);
      const key = await t.call('POST', '/organizations/api-keys', { as: org, body: { name: 'integration', kind: 'integration' } });
      const apiKey: string = key.body.result.api_key;
      const integration: TestOrg = { orgId: org.orgId, apiKey, headers: { 'service-orgid': org.orgId, 'service-api-key': apiKey } };
      assert.deepEqual(errorCodes((await create({ name: 'x', type: 'scim' }, integration)).body), ['FORBIDDEN']);
    });

    const bad: [string, unknown, RegExp][] = [
      ['no body', undefined, /^body: must be an object/],
      ['name missing', { type: 'scim' }, /^body\.name: is required/],
      ['name of the wrong type', { name: 7, type: 'scim' }, /^body\.name: must be a string/],
      ['name empty', { name: '', type: 'scim' }, /^body\.name: must NOT have fewer than 1 characters/],
      ['name too long', { name: 'n'.repeat(101), type: 'scim' }, /^body\.name: must NOT have more than 100 characters/],
      ['type missing', { name: 'x' }, /^body\.type: is required/],
      ['type unknown', { name: 'x', type: 'ldap' }, /^body\.type: must be one of scim, scim_pull/],
      ['an unknown field', { name: 'x', type: 'scim', owner: 'me' }, /^body\.owner: is not a known field/],
      ['base_url on scim', { name: 'x', type: 'scim', base_url: 'https://idp.example/scim/v2' }, /^body\.base_url: is only for type scim_pull/],
      ['bearer_token on scim', { name: 'x', type: 'scim', bearer_token: 't' }, /^body\.bearer_token: is only for type scim_pull/],
      ['base_url missing', { name: 'x', type: 'scim_pull', bearer_token: 't' }, /^body\.base_url: is required for type scim_pull/],
      ['bearer_token missing', { name: 'x', type: 'scim_pull', base_url: 'https://idp.example' }, /^body\.bearer_token: is required for type scim_pull/],
      ['base_url not a URL', { name: 'x', type: 'scim_pull', base_url: 'idp', bearer_token: 't' }, /^body\.base_url: must be an absolute URL/],
      ['base_url plain http', { name: 'x', type: 'scim_pull', base_url: 'http://idp.example', bearer_token: 't' }, /^body\.base_url: must use https/],
      ['base_url with a query', { name: 'x', type: 'scim_pull', base_url: 'https://idp.example/?a=1', bearer_token: 't' }, /^body\.base_url: must not carry/],
      [
        'base_url too long',
        { name: 'x', type: 'scim_pull', base_url: `https://idp.example/${'a'.repeat(2048)}`, bearer_token: 't' },
        /^body\.base_url: must NOT have more/,
      ],
      ['bearer_token empty', { name: 'x', type: 'scim_pull', base_url: 'https://idp.example', bearer_token: '' }, /^body\.bearer_token: must NOT have fewer/],
      ['bearer_token with a space', { name: 'x', type: 'scim_pull', base_url: 'https://idp.example', bearer_token: 'a b' }, /^body\.bearer_token: must match/],
      [
        'bearer_token of the wrong type',
        { name: 'x', type: 'scim_pull', base_url: 'https://idp.example', bearer_token: 5 },
        /^body\.bearer_token: must be a string/,
      ],
    ];
    for (const [what, body, message] of bad) {
      it(`answers 400 naming the field and rule: ${what}`, async () => {
        const response = await create(body);
        assert.equal(response.status, 400, JSON.stringify(response.body));
        assert.ok(
          response.body.errors.some((e: { message: string; code: string }) => e.code === 'INVALID_FIELD' && message.test(e.message)),
          JSON.stringify(response.body),
        );
      });
    }
  });
}

describe('scim_pull base_url without TESSERA_DEV', () => {
  it('refuses loopback http', async () => {
    const t = await startTestService(backends()[0]!);
    try {
      const org = await t.org();
      const response = await t.call('POST', '/organizations/connections', {
        as: org,
        body: { name: 'x', type: 'scim_pull', base_url: 'http://127.0.0.1:1/scim/v2', bearer_token: 't' },
      });
      assert.match(response.body.errors[0].message, /^body\.base_url: http is allowed for loopback only when the service runs with TESSERA_DEV=1/);
    } finally {
      await t.close();
    }
  });
});
