import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { KeyRing } from '../../src/oauth/keys/key-ring.ts';
import { createOrganization } from '../../src/organizations/create-organization.ts';
import { buildApp } from '../../src/service/app.ts';
import { openStore } from '../../src/store/open-store.ts';
import type { Store } from '../../src/store/store.ts';
import { type Backend, backends } from '../helpers/backends.ts';
import { TEST_SECRET } from '../helpers/service.ts';

/** A moment far from the wall clock, so an event stamped by Date.now() cannot pass by luck. */
const FROZEN = Date.UTC(2031, 4, 6, 7, 8, 9, 10);

/** The millisecond time in a newId (ULID layout: ten Crockford base32 digits after the prefix). */
function idTime(id: string): number {
  const digits = id.slice(id.indexOf('_') + 1, id.indexOf('_') + 11);
  return [...digits].reduce((time, digit) => time * 32 + '0123456789abcdefghjkmnpqrstvwxyz'.indexOf(digit), 0);
}

const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;

for (const backend of backends()) {
  describe(`Audit events take the app's clock, on ${backend.name}`, () => {
    let database: Awaited<ReturnType<Backend['fresh']>>;
    let store: Store;
    let app: FastifyInstance;

    before(async () => {
      database = await backend.fresh();
      store = (await openStore(database.url)).store;
      const now = () => FROZEN;
      const keys = new KeyRing(store, TEST_SECRET, now);
      await keys.init();
      app = await buildApp({
        store,
        config: { dev: false, bodyLimit: 1_048_576, logLevel: 'silent', secret: TEST_SECRET },
        keys,
        issuer: () => 'http://tessera.test',
        now,
      });
    });
    after(async () => {
      await app.close();
      await store.close();
      await database.drop();
    });

    it('stamps token requests (granted and refused) and minted person tokens with the frozen time, id and occurred_at alike', async () => {
      const { org, apiKey } = await createOrganization(store, `org-${FROZEN}-${backend.name}`);
      const headers = { 'service-orgid': org.id, 'service-api-key': apiKey };
      const registered = await app.inject({
        method: 'POST',
        url: '/oauth2/clients',
        headers,
        payload: { client_name: 'gateway', grant_types: ['client_credentials'], scopes: ['orders:read'] },
      });
      assert.equal(registered.statusCode, 201, registered.body);
      const { client_id: clientId, client_secret: clientSecret } = registered.json().result;
      const form = { 'content-type': 'application/x-www-form-urlencoded' };
      const granted = await app.inject({
        method: 'POST',
        url: '/oauth2/tokens',
        headers: { ...form, authorization: basic(clientId, clientSecret) },
        payload: 'grant_type=client_credentials',
      });
      assert.equal(granted.statusCode, 200, granted.body);
      const refused = await app.inject({
        method: 'POST',
        url: '/oauth2/tokens',
        headers: { ...form, authorization: basic(clientId, 'wrong') },
        payload: 'grant_type=client_credentials',
      });
      assert.equal(refused.statusCode, 401, refused.body);
      const person = await app.inject({
        method: 'POST',
        url: '/persons',
        headers,
        payload: { handles: [{ type: 'email_address', value: 'ada@example.com' }] },
      });
      assert.equal(person.statusCode, 201, person.body);
      const minted = await app.inject({ method: 'POST', url: `/persons/${person.json().result.id}/mint-token`, headers, payload: {} });
      assert.equal(minted.statusCode, 200, minted.body);

      const events = (await store.listAuditEvents(org.id, undefined, { position: { kind: 'first' }, limit: 10 })).items;
      assert.deepEqual(events.map((e) => [e.type, e.data.result ?? null]).sort(), [
        ['client.created', null],
        ['person.created', null],
        ['person.token_minted', null],
        ['token.client_credentials', 'granted'],
        ['token.client_credentials', 'refused'],
      ]);
      for (const event of events) {
        assert.equal(event.occurredAt, FROZEN, `${event.type}: occurred_at`);
        assert.equal(idTime(event.id), FROZEN, `${event.type}: the id's time`);
      }
    });
  });
}
