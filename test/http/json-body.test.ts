import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { jsonBodyBounds } from '../../src/http/json-body.ts';
import { backends } from '../helpers/backends.ts';
import { errorCodes, startTestService, type TestOrg, type TestService } from '../helpers/service.ts';
import { type ScimTenant, scimTenant } from '../scim/scim-helpers.ts';

const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
/** `{"handles": [...]}` holding `count` values in all: the object, the array (its member's value) and the items. */
const manyValues = (count: number) => JSON.stringify({ handles: Array.from({ length: count - 2 }, () => 0) });

const utf8 = (text: string) => Buffer.from(text, 'utf8');
const invalidUtf8: [string, Buffer][] = [
  ['a stray continuation byte', Buffer.concat([utf8('{"handles": [{"type": "email_address", "value": "a'), Buffer.from([0xff]), utf8('@example.com"}]}')])],
  [
    'an overlong encoding of "/"',
    Buffer.concat([utf8('{"handles": [{"type": "email_address", "value": "a'), Buffer.from([0xc0, 0xaf]), utf8('@example.com"}]}')]),
  ],
  [
    'an encoded surrogate',
    Buffer.concat([utf8('{"handles": [{"type": "email_address", "value": "a'), Buffer.from([0xed, 0xa0, 0x80]), utf8('@example.com"}]}')]),
  ],
  ['a truncated sequence at the end', Buffer.concat([utf8('{"handles": []}'), Buffer.from([0xe2, 0x82])])],
];

for (const backend of backends()) {
  describe(`JSON bodies are read whole and bounded on ${backend.name}`, () => {
    let t: TestService;
    let org: TestOrg;
    let tenant: ScimTenant;
    const persons = async () => (await t.call('GET', '/persons', { as: org })).body.meta.cursor_pagination.total_count as number;

    before(async () => {
      t = await startTestService(backend);
      org = await t.org();
      tenant = await scimTenant(t);
    });
    after(() => t.close());

    for (const [name, bytes] of invalidUtf8) {
      it(`regression: a body with invalid UTF-8 (${name}) is 400 MALFORMED_JSON, not read as U+FFFD, and writes nothing`, async () => {
        const before = await persons();
        const response = await t.call('POST', '/persons', { as: org, body: bytes });
        assert.equal(response.status, 400);
        assert.deepEqual(errorCodes(response.body), ['MALFORMED_JSON']);
        assert.equal(response.body.errors[0].message, 'body: is not valid UTF-8');
        assert.equal(await persons(), before);
      });
    }

    it('reads a UTF-8 body with characters beyond ASCII as sent', async () => {
      const body = utf8(JSON.stringify({ userName: 'zoe@example.com', displayName: 'Zoë 日本 🙂' }));
      const response = await fetch(`${t.url}/scim/v2/Users`, {
        method: 'POST',
        headers: { authorization: `Bearer ${tenant.token}`, 'content-type': 'application/scim+json' },
        body,
      });
      assert.equal(response.status, 201);
      assert.equal(((await response.json()) as { displayName: string }).displayName, 'Zoë 日本 🙂');
    });

    it(`regression: a body nested 10,000 deep is 400 naming the bound of ${jsonBodyBounds.depth} levels, not a 500`, async () => {
      const response = await t.call('POST', '/persons', { as: org, body: nested(10_000) });
      assert.equal(response.status, 400);
      assert.deepEqual(errorCodes(response.body), ['MALFORMED_JSON']);
      assert.equal(response.body.errors[0].message, `body: nests deeper than ${jsonBodyBounds.depth} levels`);
    });

    it('lets a body exactly at the depth bound reach the schema (which then names the field)', async () => {
      const response = await t.call('POST', '/persons', { as: org, body: `{"handles": ${nested(jsonBodyBounds.depth - 1)}}` });
      assert.equal(response.status, 400);
      assert.deepEqual([...new Set(errorCodes(response.body))], ['INVALID_FIELD']);
    });

    it(`refuses a body of more than ${jsonBodyBounds.values} values before the schema lists an error for each`, async () => {
      const over = await t.call('POST', '/persons', { as: org, body: manyValues(jsonBodyBounds.values + 1) });
      assert.equal(over.status, 400);
      assert.deepEqual(errorCodes(over.body), ['MALFORMED_JSON']);
      assert.match(over.body.errors[0].message, new RegExp(`^body: holds more than ${jsonBodyBounds.values} values`));
      const at = await t.call('POST', '/persons', { as: org, body: manyValues(jsonBodyBounds.values) });
      assert.equal(at.status, 400);
      assert.notDeepEqual(errorCodes(at.body), ['MALFORMED_JSON']);
    });

    it('answers SCIM bodies the same way, as SCIM invalidSyntax errors', async () => {
      for (const body of [nested(10_000), invalidUtf8[0]![1]]) {
        const response = await fetch(`${t.url}/scim/v2/Users`, {
          method: 'POST',
          headers: { authorization: `Bearer ${tenant.token}`, 'content-type': 'application/scim+json' },
          body,
        });
        assert.equal(response.status, 400);
        const error = (await response.json()) as { scimType: string; detail: string };
        assert.equal(error.scimType, 'invalidSyntax');
        assert.match(error.detail, /^body: (nests deeper|is not valid UTF-8)/);
      }
    });
  });
}
