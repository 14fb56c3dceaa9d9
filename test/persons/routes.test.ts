import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { backends } from '../helpers/backends.ts';
import { errorCodes, startTestService, type TestOrg, type TestService } from '../helpers/service.ts';

const E164_RULE = /^body\.handles\[0\]\.value: must be an E\.164 phone number \(\+ then 7 to 15 digits, e\.g\. \+14155550100\)$/;
const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const invisible = (codePoint: string) =>
  new RegExp(
    `^body\\.handles\\[0\\]\\.value: ${escapeRegExp(`must not contain control or format characters such as zero-width or bidirectional marks (found ${codePoint})`)}$`,
  );
const mixed = (where: string, scripts: string) =>
  new RegExp(
    `^body\\.handles\\[0\\]\\.value: ${escapeRegExp(`must not mix scripts within one label (${where} mixes ${scripts}; UTS #39 "Highly Restrictive")`)}$`,
  );
/** Unicode Cc and Cf characters that make two different addresses look alike. */
const invisibleCharacters: [string, string][] = [
  ['a NUL', '\u0000'],
  ['a tab', '\t'],
  ['a zero-width space', '\u200b'],
  ['a zero-width non-joiner', '\u200c'],
  ['a zero-width joiner', '\u200d'],
  ['a word joiner', '\u2060'],
  ['a byte-order mark', '\ufeff'],
  ['a left-to-right mark', '\u200e'],
  ['a right-to-left mark', '\u200f'],
  ['an LTR embedding', '\u202a'],
  ['an RTL embedding', '\u202b'],
  ['a pop directional formatting', '\u202c'],
  ['an LTR override', '\u202d'],
  ['an RTL override', '\u202e'],
  ['an LTR isolate', '\u2066'],
  ['an RTL isolate', '\u2067'],
  ['a first-strong isolate', '\u2068'],
  ['a pop directional isolate', '\u2069'],
  ['an Arabic letter mark', '\u061c'],
];

for (const backend of backends()) {
  describe(`Persons API on ${backend.name}`, () => {
    let t: TestService;
    let org: TestOrg;
    const count = async (as: TestOrg) => (await t.call('GET', '/persons', { as })).body.meta.cursor_pagination.total_count as number;

    before(async () => {
      t = await startTestService(backend);
      org = await t.org();
    });
    after(() => t.close());

    it('creates a person with normalised handles, reads and deletes it', async () => {
      const created = await t.call('POST', '/persons', {
        as: org,
        body: {
          handles: [
            { type: 'email_address', value: 'Grace.Hopper@Example.COM' },
            { type: 'phone_number', value: '+14155550100' },
          ],
          roles: ['verifier', 'admin'],
          console: true,
        },
      });
      assert.equal(created.status, 201);
      const person = created.body.result;
      assert.match(person.id, /^per_[0-9a-z]{26}$/);
      assert.deepEqual(person.handles, [
        { type: 'email_address', value: 'grace.hopper@example.com' },
        { type: 'phone_number', value: '+14155550100' },
      ]);
      assert.deepEqual(person.roles, ['verifier', 'admin']);
      assert.equal(person.console, true);
      assert.ok(!Number.isNaN(Date.parse(person.created_at)));
      assert.deepEqual((await t.call('GET', `/persons/${person.id}`, { as: org })).body.result, person);
      // Another console administrator, so that this one (admin and console) is not the organisation's last.
      assert.equal((await t.call('POST', '/persons', { as: org, body: { roles: ['admin'], console: true } })).status, 201);
      assert.equal((await t.call('DELETE', `/persons/${person.id}`, { as: org })).status, 204);
      const gone = await t.call('GET', `/persons/${person.id}`, { as: org });
      assert.equal(gone.status, 404);
      assert.match(gone.body.errors[0].message, /path\.person_id/);
      assert.equal((await t.call('DELETE', `/persons/${person.id}`, { as: org })).status, 404);
    });

    it('defaults to no handles, no roles and console false', async () => {
      const created = await t.call('POST', '/persons', { as: org, body: {} });
      assert.equal(created.status, 201);
      assert.deepEqual([created.body.result.handles, created.body.result.roles, created.body.result.console], [[], [], false]);
      await t.call('DELETE', `/persons/${created.body.result.id}`, { as: org });
    });

    it('refuses a duplicate handle, compared case-insensitively for email, with 409 naming it', async () => {
      await t.call('POST', '/persons', { as: org, body: { handles: [{ type: 'email_address', value: 'dup@example.com' }] } });
      const before = await count(org);
      const again = await t.call('POST', '/persons', { as: org, body: { handles: [{ type: 'email_address', value: 'DUP@example.com' }] } });
      assert.equal(again.status, 409);
      assert.deepEqual(errorCodes(again.body), ['CONFLICT']);
      assert.match(again.body.errors[0].message, /email_address dup@example\.com is already used/);
      assert.equal(await count(org), before, 'nothing was written');
    });

    it('treats composed and decomposed spellings of an address as one handle: 409 CONFLICT on create', async () => {
      const composed = 'ren\u00e9e@example.com';
      const decomposed = 'rene\u0301e@example.com';
      const first = await t.call('POST', '/persons', { as: org, body: { handles: [{ type: 'email_address', value: decomposed }] } });
      assert.equal(first.status, 201);
      assert.deepEqual(first.body.result.handles, [{ type: 'email_address', value: composed }], 'stored in NFC');
      const before = await count(org);
      const again = await t.call('POST', '/persons', { as: org, body: { handles: [{ type: 'email_address', value: composed }] } });
      assert.equal(again.status, 409);
      assert.deepEqual(again.body.errors, [
        {
          httpcode: 409,
          code: 'CONFLICT',
          message: `body.handles: email_address ${composed} is already used by another person of this organisation`,
        },
      ]);
      assert.equal(await count(org), before, 'nothing was written');
      const both = await t.call('POST', '/persons', {
        as: org,
        body: {
          handles: [
            { type: 'email_address', value: `x${composed}` },
            { type: 'email_address', value: `X${decomposed}` },
          ],
        },
      });
      assert.equal(both.status, 400);
      assert.equal(both.body.errors[0].message, 'body.handles[1]: repeats body.handles[0]');
    });

    it('finds the same person under an uppercase domain, for a create and for a look-up', async () => {
      const created = await t.call('POST', '/persons', { as: org, body: { handles: [{ type: 'email_address', value: 'lin@example.org' }] } });
      const again = await t.call('POST', '/persons', { as: org, body: { handles: [{ type: 'email_address', value: 'lin@EXAMPLE.ORG' }] } });
      assert.equal(again.status, 409);
      assert.match(again.body.errors[0].message, /^body\.handles: email_address lin@example\.org is already used/);
      const found = await t.service.store.findPersonByHandle(org.orgId, { type: 'email_address', value: 'Lin@Example.ORG' });
      assert.equal(found?.id, created.body.result.id);
    });

    it('accepts addresses in one script per label, and Latin with Han and kana', async () => {
      const handles = [
        { type: 'email_address', value: '\u0438\u0432\u0430\u043d.ivan@example.com' },
        { type: 'email_address', value: 'tanaka\u7530\u4e2d@example.jp' },
        { type: 'email_address', value: 'ada@xn--bcher-kva.example' },
      ];
      const created = await t.call('POST', '/persons', { as: org, body: { handles } });
      assert.equal(created.status, 201);
      assert.deepEqual(created.body.result.handles, handles);
    });

    const badBodies: [string, unknown, RegExp][] = [
      ['unknown field', { handles: [], nickname: 'x' }, /^body\.nickname: is not a known field$/],
      ['handles not an array', { handles: 'a@b.c' }, /^body\.handles: must be an array$/],
      ['unknown handle type', { handles: [{ type: 'fax', value: '1' }] }, /^body\.handles\[0\]\.type: must be one of email_address, phone_number$/],
      ['handle without value', { handles: [{ type: 'email_address' }] }, /^body\.handles\[0\]\.value: is required$/],
      ['bad email', { handles: [{ type: 'email_address', value: 'not-an-email' }] }, /^body\.handles\[0\]\.value: must be an email address/],
      ['email with spaces', { handles: [{ type: 'email_address', value: 'a b@example.com' }] }, /^body\.handles\[0\]\.value: must be an email address/],
      ['phone not E.164', { handles: [{ type: 'phone_number', value: '0415 555 0100' }] }, /^body\.handles\[0\]\.value: must be an E\.164 phone number/],
      ['phone with an international 00 prefix', { handles: [{ type: 'phone_number', value: '0041446681800' }] }, E164_RULE],
      ['phone with a country code starting 0', { handles: [{ type: 'phone_number', value: '+0415550100' }] }, E164_RULE],
      ['phone with spaces', { handles: [{ type: 'phone_number', value: '+1 415 555 0100' }] }, E164_RULE],
      ['phone of 16 digits', { handles: [{ type: 'phone_number', value: '+1234567890123456' }] }, E164_RULE],
      ['phone with a zero-width space', { handles: [{ type: 'phone_number', value: '+1415555\u200b0100' }] }, invisible('U+200B')],
      [
        'Latin "paypal" with a Cyrillic "а"',
        { handles: [{ type: 'email_address', value: 'p\u0430ypal@example.com' }] },
        mixed('local part label 1', 'Cyrillic, Latin'),
      ],
      [
        'a Greek letter in a Latin label after a dot',
        { handles: [{ type: 'email_address', value: 'ada.\u03bfbrien@example.com' }] },
        mixed('local part label 2', 'Greek, Latin'),
      ],
      ['a mixed-script A-label domain', { handles: [{ type: 'email_address', value: 'ada@xn--pypal-4ve.com' }] }, mixed('domain label 1', 'Cyrillic, Latin')],
      [
        'a Unicode (not A-label) domain',
        { handles: [{ type: 'email_address', value: 'ada@p\u0430ypal.com' }] },
        /^body\.handles\[0\]\.value: must be an email address \(local@domain\.tld\)$/,
      ],
      [
        'a private-use character',
        { handles: [{ type: 'email_address', value: 'ada\ue000@example.com' }] },
        /^body\.handles\[0\]\.value: must contain only assigned Unicode characters, no private-use code points or unpaired surrogates \(found U\+E000\)$/,
      ],
      [
        'an unpaired surrogate',
        { handles: [{ type: 'email_address', value: 'ada\ud800@example.com' }] },
        /^body\.handles\[0\]\.value: must contain only assigned Unicode characters, no private-use code points or unpaired surrogates \(found U\+D800\)$/,
      ],
      ...invisibleCharacters.map(([name, char]): [string, unknown, RegExp] => [
        `an email with ${name}`,
        { handles: [{ type: 'email_address', value: `ad${char}a@example.com` }] },
        invisible(`U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`),
      ]),
      [
        'same handle twice',
        {
          handles: [
            { type: 'email_address', value: 'x@example.com' },
            { type: 'email_address', value: 'X@example.com' },
          ],
        },
        /^body\.handles\[1\]: repeats body\.handles\[0\]$/,
      ],
      [
        'too many handles',
        { handles: Array.from({ length: 11 }, (_, i) => ({ type: 'email_address', value: `p${i}@example.com` })) },
        /^body\.handles: must NOT have more than 10 items$/,
      ],
      ['unknown role', { roles: ['owner'] }, /^body\.roles\[0\]: must be one of admin, verifier$/],
      ['repeated role', { roles: ['admin', 'admin'] }, /^body\.roles: must not repeat an item/],
      ['console as string', { console: 'yes' }, /^body\.console: must be a boolean$/],
      ['array body', [], /^body: must be an object$/],
    ];
    for (const [name, body, message] of badBodies) {
      it(`answers 400 naming the field and rule for ${name}, writing nothing`, async () => {
        const before = await count(org);
        const response = await t.call('POST', '/persons', { as: org, body });
        assert.equal(response.status, 400);
        assert.equal(response.body.errors[0].httpcode, 400);
        assert.equal(response.body.errors[0].code, 'INVALID_FIELD');
        assert.match(response.body.errors[0].message, message);
        assert.equal(response.body.result, undefined);
        assert.equal(await count(org), before);
      });
    }

    it('reports every broken field of a body at once', async () => {
      const response = await t.call('POST', '/persons', { as: org, body: { roles: ['owner'], console: 1, extra: true } });
      assert.deepEqual(response.body.errors.map((e: { message: string }) => e.message).sort(), [
        'body.console: must be a boolean',
        'body.extra: is not a known field',
        'body.roles[0]: must be one of admin, verifier',
      ]);
    });

    it('walks every page forwards and back with opaque cursors (spec §2.2 rules)', async () => {
      const other = await t.org();
      const ids: string[] = [];
      for (let i = 0; i < 7; i++)
        ids.push((await t.call('POST', '/persons', { as: other, body: { handles: [{ type: 'email_address', value: `p${i}@example.com` }] } })).body.result.id);
      // Lists are in id order; two persons created within one millisecond get ids in random order.
      ids.sort();
      const list = async (query: string) => (await t.call('GET', `/persons?${query}`, { as: other })).body;

      const first = await list('limit=3');
      assert.deepEqual(
        first.result.map((p: { id: string }) => p.id),
        ids.slice(0, 3),
      );
      const meta1 = first.meta.cursor_pagination;
      assert.equal(meta1.total_count, 7);
      assert.equal(meta1.limit, 3);
      assert.equal(meta1.prev_cursor, undefined, 'no prev_cursor on the first page');
      assert.ok(meta1.next_cursor && meta1.last_cursor);

      const second = await list(`limit=3&cursor=${meta1.next_cursor}`);
      assert.deepEqual(
        second.result.map((p: { id: string }) => p.id),
        ids.slice(3, 6),
      );
      assert.equal(second.meta.cursor_pagination.total_count, undefined, 'total_count on the first page only');
      const third = await list(`limit=3&cursor=${second.meta.cursor_pagination.next_cursor}`);
      assert.deepEqual(
        third.result.map((p: { id: string }) => p.id),
        ids.slice(6),
      );
      assert.equal(third.meta.cursor_pagination.next_cursor, undefined, 'no next_cursor on the last page');

      const back = await list(`limit=3&cursor=${third.meta.cursor_pagination.prev_cursor}`);
      assert.deepEqual(
        back.result.map((p: { id: string }) => p.id),
        ids.slice(3, 6),
      );
      const last = await list(`limit=3&cursor=${meta1.last_cursor}`);
      assert.deepEqual(
        last.result.map((p: { id: string }) => p.id),
        ids.slice(4),
      );
      assert.equal(last.meta.cursor_pagination.next_cursor, undefined);
      assert.ok(last.meta.cursor_pagination.prev_cursor);
    });

    it('refuses cursors it did not issue for this list, and limits out of range', async () => {
      const clientsCursor = (await t.call('GET', '/oauth2/clients', { as: org })).body.meta.cursor_pagination.last_cursor;
      for (const [query, code, message] of [
        ['cursor=garbage', 'INVALID_CURSOR', /^query\.cursor: /],
        [`cursor=${clientsCursor}`, 'INVALID_CURSOR', /^query\.cursor: /],
        ['limit=0', 'INVALID_FIELD', /^query\.limit: must be >= 1$/],
        ['limit=101', 'INVALID_FIELD', /^query\.limit: must be <= 100$/],
        ['limit=ten', 'INVALID_FIELD', /^query\.limit: must be an integer$/],
        ['sort=name', 'INVALID_FIELD', /^query\.sort: is not a known field$/],
      ] as const) {
        const response = await t.call('GET', `/persons?${query}`, { as: org });
        assert.equal(response.status, 400, query);
        assert.deepEqual(errorCodes(response.body), [code]);
        assert.match(response.body.errors[0].message, message);
      }
    });
  });
}
