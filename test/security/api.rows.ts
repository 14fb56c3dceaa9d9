import assert from 'node:assert/strict';
import { ACCESS_TOKEN_TYPE, EXCHANGE, JWT_TYPE, oauthPost, token } from '../helpers/oauth.ts';
import { errorCodes } from '../helpers/service.ts';
import type { SecurityStack } from './harness.ts';
import type { SecurityRow } from './rows.ts';

/** An opaque token for a fresh person, exchanged by the stack's client: something a delete must revoke. */
async function personWithOpaqueToken(s: SecurityStack) {
  const person = await s.person();
  const exchanged = await token(
    s.t,
    { grant_type: EXCHANGE, subject_token: person.token, subject_token_type: JWT_TYPE, requested_token_type: ACCESS_TOKEN_TYPE },
    s.client,
  );
  assert.equal(exchanged.status, 200, JSON.stringify(exchanged.body));
  return { ...person, opaque: exchanged.body.access_token as string };
}

const active = async (s: SecurityStack, value: string) =>
  (await oauthPost(s.t, '/oauth2/tokens/introspect', { token: value }, s.client)).body.active as boolean;

const createWith = (s: SecurityStack, value: string, type = 'email_address') =>
  s.t.call('POST', '/persons', { as: s.org, body: { handles: [{ type, value }] } });
const unique = () => Math.random().toString(36).slice(2, 10);

export const apiRows: SecurityRow[] = [
  {
    request: 'DELETE /persons/{id} while the database refuses to revoke their tokens (a real trigger)',
    expect: '500 INTERNAL_ERROR in the envelope; the person and their opaque token unchanged; after the fault, 204 and the token inactive',
    async check(s) {
      const { id, opaque } = await personWithOpaqueToken(s);
      await s.database.breakRevocation();
      try {
        const refused = await s.t.call('DELETE', `/persons/${id}`, { as: s.org });
        assert.deepEqual([refused.status, errorCodes(refused.body)], [500, ['INTERNAL_ERROR']]);
      } finally {
        await s.database.mendRevocation();
      }
      assert.equal((await s.t.call('GET', `/persons/${id}`, { as: s.org })).status, 200, 'the person is still there');
      assert.equal(await active(s, opaque), true, 'their token was not half-revoked');
      assert.equal((await s.t.call('DELETE', `/persons/${id}`, { as: s.org })).status, 204);
      assert.equal(await active(s, opaque), false);
    },
  },
  {
    request: 'DELETE /oauth2/clients/{id} while the database refuses to revoke its tokens',
    expect: '500 INTERNAL_ERROR; the client still there and its token still active',
    async check(s) {
      const created = await s.t.call('POST', '/oauth2/clients', {
        as: s.org,
        body: { client_name: 'doomed', grant_types: ['client_credentials'], scopes: ['orders:read'] },
      });
      const client = { id: created.body.result.client_id as string, secret: created.body.result.client_secret as string };
      const own = (await token(s.t, { grant_type: 'client_credentials' }, client)).body.access_token as string;
      await s.database.breakRevocation();
      try {
        assert.equal((await s.t.call('DELETE', `/oauth2/clients/${client.id}`, { as: s.org })).status, 500);
      } finally {
        await s.database.mendRevocation();
      }
      assert.equal((await s.t.call('GET', `/oauth2/clients/${client.id}`, { as: s.org })).status, 200);
      assert.equal((await oauthPost(s.t, '/oauth2/tokens/introspect', { token: own }, client)).body.active, true);
    },
  },
  {
    request: 'POST /persons with the decomposed spelling (NFD) of an address another person holds in NFC',
    expect: '409 CONFLICT: one address, one person',
    async check(s) {
      const local = `ren${unique()}e\u0301`;
      assert.equal((await createWith(s, `${local.normalize('NFC')}@example.com`)).status, 201);
      const second = await createWith(s, `${local.normalize('NFD')}@example.com`);
      assert.deepEqual([second.status, errorCodes(second.body)], [409, ['CONFLICT']]);
    },
  },
  {
    request: 'POST /persons with an address whose domain is upper-cased and has the case of a taken one',
    expect: '409 CONFLICT',
    async check(s) {
      const local = `lin${unique()}`;
      assert.equal((await createWith(s, `${local}@example.org`)).status, 201);
      assert.equal((await createWith(s, `${local}@EXAMPLE.ORG`)).status, 409);
    },
  },
  ...(
    [
      ['a zero-width space in an email handle', `ada\u200b${unique()}@example.com`, 'email_address', /control or format characters/],
      ['a right-to-left override in an email handle', `ada\u202e${unique()}@example.com`, 'email_address', /control or format characters/],
      ['Latin mixed with a Cyrillic а in one label', `p\u0430ypal${unique()}@example.com`, 'email_address', /mix scripts/],
      ['an A-label domain that decodes to mixed scripts', `ada${unique()}@xn--pypal-4ve.com`, 'email_address', /mix scripts/],
      ['a phone number that is not E.164 (national 00 prefix)', '0041446681800', 'phone_number', /E\.164/],
      ['a phone number with spaces', '+1 415 555 0100', 'phone_number', /E\.164/],
    ] as [string, string, string, RegExp][]
  ).map(
    ([request, value, type, rule]): SecurityRow => ({
      request: `POST /persons with ${request}`,
      expect: '400 INVALID_FIELD naming body.handles[0].value and the rule; nothing stored',
      async check(s) {
        const before = (await s.t.call('GET', '/persons?limit=1', { as: s.org })).body.meta.cursor_pagination.total_count as number;
        const response = await createWith(s, value, type);
        assert.deepEqual([response.status, errorCodes(response.body)], [400, ['INVALID_FIELD']]);
        assert.match(response.body.errors[0].message, /^body\.handles\[0\]\.value: /);
        assert.match(response.body.errors[0].message, rule);
        assert.equal((await s.t.call('GET', '/persons?limit=1', { as: s.org })).body.meta.cursor_pagination.total_count, before);
      },
    }),
  ),
  {
    request: 'issue 24 review: POST /persons/{id}/mint-token, then the audit log',
    expect: 'person.token_minted names its operator (operator: api_key and the key), as every administrative event does',
    async check(s) {
      const person = await s.person();
      const events = (await s.t.call('GET', '/audit/events?type=person.token_minted&limit=100', { as: s.org })).body.result as {
        data: Record<string, unknown>;
      }[];
      const minted = events.find((event) => event.data.person_id === person.id);
      assert.ok(minted, 'the mint is recorded');
      assert.equal(minted.data.operator, 'api_key');
      assert.match(String(minted.data.api_key_id), /^key_/);
    },
  },
];
