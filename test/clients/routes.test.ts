import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { hashSecret } from '../../src/crypto/ids.ts';
import { backends } from '../helpers/backends.ts';
import { errorCodes, startTestService, type TestOrg, type TestService } from '../helpers/service.ts';

const EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';

for (const backend of backends()) {
  describe(`OAuth2 clients API on ${backend.name}`, () => {
    let t: TestService;
    let org: TestOrg;
    const count = async () => (await t.call('GET', '/oauth2/clients', { as: org })).body.meta.cursor_pagination.total_count as number;

    before(async () => {
      t = await startTestService(backend);
      org = await t.org();
    });
    after(() => t.close());

    it('registers a client, shows its secret once and stores only its hash', async () => {
      const created = await t.call('POST', '/oauth2/clients', {
        as: org,
        body: { client_name: 'gateway', grant_types: ['client_credentials', EXCHANGE], scopes: ['orders:read', 'orders:write'], access_token_duration: 600 },
      });
      assert.equal(created.status, 201);
      const client = created.body.result;
      assert.match(client.client_id, /^cli_/);
      assert.match(client.client_secret, /^tcs_[A-Za-z0-9_-]{43}$/);
      assert.deepEqual(
        { ...client, client_id: undefined, client_secret: undefined, created_at: undefined },
        {
          client_name: 'gateway',
          grant_types: ['client_credentials', EXCHANGE],
          scopes: ['orders:read', 'orders:write'],
          access_token_duration: 600,
          access_token_format: 'opaque',
          token_endpoint_auth_method: 'client_secret_basic',
          client_id: undefined,
          client_secret: undefined,
          created_at: undefined,
        },
      );
      const read = (await t.call('GET', `/oauth2/clients/${client.client_id}`, { as: org })).body.result;
      assert.equal(read.client_secret, undefined, 'never shown again');
      const stored = await t.service.store.findClient(client.client_id);
      assert.equal(stored?.secretHash, hashSecret(client.client_secret));
      assert.ok(!JSON.stringify(stored).includes(client.client_secret), 'the clear secret is not stored');
    });

    it('applies defaults: no scopes, one hour, opaque tokens', async () => {
      const client = (await t.call('POST', '/oauth2/clients', { as: org, body: { client_name: 'minimal', grant_types: [EXCHANGE] } })).body.result;
      assert.deepEqual([client.scopes, client.access_token_duration, client.access_token_format], [[], 3600, 'opaque']);
    });

    it('rotates the secret: the new one replaces the old at once', async () => {
      const client = (await t.call('POST', '/oauth2/clients', { as: org, body: { client_name: 'rotating', grant_types: ['client_credentials'] } })).body.result;
      const rotated = await t.call('POST', `/oauth2/clients/${client.client_id}/secret`, { as: org });
      assert.equal(rotated.status, 200);
      assert.equal(rotated.body.result.client_id, client.client_id);
      assert.notEqual(rotated.body.result.client_secret, client.client_secret);
      assert.equal((await t.service.store.findClient(client.client_id))?.secretHash, hashSecret(rotated.body.result.client_secret));
    });

    it('deletes a client', async () => {
      const client = (await t.call('POST', '/oauth2/clients', { as: org, body: { client_name: 'doomed', grant_types: ['client_credentials'] } })).body.result;
      assert.equal((await t.call('DELETE', `/oauth2/clients/${client.client_id}`, { as: org })).status, 204);
      assert.equal((await t.call('GET', `/oauth2/clients/${client.client_id}`, { as: org })).status, 404);
      assert.equal(await t.service.store.findClient(client.client_id), undefined);
    });

    const badBodies: [string, unknown, RegExp][] = [
      ['no name', { grant_types: ['client_credentials'] }, /^body\.client_name: is required$/],
      [
        'unknown grant type',
        { client_name: 'x', grant_types: ['password'] },
        /^body\.grant_types\[0\]: must be one of client_credentials, urn:ietf:params:oauth:grant-type:token-exchange$/,
      ],
      ['no grant type', { client_name: 'x', grant_types: [] }, /^body\.grant_types: must NOT have fewer than 1 items$/],
      ['repeated grant type', { client_name: 'x', grant_types: ['client_credentials', 'client_credentials'] }, /^body\.grant_types: must not repeat an item/],
      ['scope with a space', { client_name: 'x', grant_types: ['client_credentials'], scopes: ['read write'] }, /^body\.scopes\[0\]: must match /],
      [
        'duration too short',
        { client_name: 'x', grant_types: ['client_credentials'], access_token_duration: 5 },
        /^body\.access_token_duration: must be >= 60$/,
      ],
      [
        'duration not an integer',
        { client_name: 'x', grant_types: ['client_credentials'], access_token_duration: 90.5 },
        /^body\.access_token_duration: must be an integer$/,
      ],
      [
        'unknown format',
        { client_name: 'x', grant_types: ['client_credentials'], access_token_format: 'paseto' },
        /^body\.access_token_format: must be one of opaque, jwt$/,
      ],
      [
        'secret supplied by the caller',
        { client_name: 'x', grant_types: ['client_credentials'], client_secret: 'mine' },
        /^body\.client_secret: is not a known field$/,
      ],
    ];
    for (const [name, body, message] of badBodies) {
      it(`answers 400 for ${name}, writing nothing`, async () => {
        const before = await count();
        const response = await t.call('POST', '/oauth2/clients', { as: org, body });
        assert.equal(response.status, 400);
        assert.deepEqual(errorCodes(response.body).slice(0, 1), ['INVALID_FIELD']);
        assert.match(response.body.errors[0].message, message);
        assert.equal(await count(), before);
      });
    }
  });
}
