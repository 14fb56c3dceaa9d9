import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { parseFilter } from '../../../src/scim/filter.ts';
import { ScimError } from '../../../src/scim-user/scim-error.ts';
import { caseKey } from '../../../src/store/identities/store.ts';
import { backends } from '../../helpers/backends.ts';
import { type ScimTenant, scimCall, scimTenant } from '../../scim/scim-helpers.ts';
import { assertNothingWritten, assertScimRefusal, type FuzzService, runs, startFuzzService } from './fuzz-service.ts';

/** Attribute paths as providers spell them, the supported ones in several cases, and some this server refuses. */
const PATHS = ['userName', 'USERNAME', 'externalId', 'id', 'emails.value', 'emails[type eq "work"].value', 'EMAILS[TYPE EQ "WORK"].VALUE'];
const UNSUPPORTED = ['name.familyName', 'meta.lastModified', 'emails[type eq "home"].value', 'active', 'emails', 'urn:x:y:z', '', '[', ']'];
const OPERATORS = ['eq', 'EQ', 'Eq', 'ne', 'co', 'sw', 'ew', 'pr', 'gt', 'ge', 'lt', 'le', 'and', 'or', 'not'];
const JOINERS = ['and', 'AND', 'or', 'not', 'eq', ''];
/** Seeded users: case, Unicode normalisation (NFC vs NFD) and email choice all matter to a filter. */
const USERS = [
  { userName: 'Ada@Example.com', externalId: 'ext-1', emails: [{ type: 'work', value: 'ada@example.com' }] },
  {
    userName: 'bob',
    externalId: 'EXT-1',
    emails: [
      { type: 'home', value: 'home@example.com' },
      { value: 'bob@example.com', primary: true },
    ],
  },
  { userName: 'Zoë', emails: [{ value: 'zoe@example.com' }] },
  { userName: 'with "quotes" and \\ back', externalId: 'a b' },
];

const quoted = (value: string) => JSON.stringify(value);
const unquoted = /^[^\s"()[\]]+$/;

/** A value as a filter may carry it: quoted (JSON escapes), or bare when it has no space, quote, paren or bracket. */
const valueToken = (values: string[]) =>
  fc
    // U+0000 is refused in a value (no stored value can hold it); everything else may be compared.
    .tuple(
      fc.oneof(
        fc.constantFrom(...values),
        fc.string({ unit: 'binary', maxLength: 12 }).filter((s) => !s.includes('\u0000')),
      ),
      fc.boolean(),
    )
    .map(([value, bare]) => ({ value, token: bare && unquoted.test(value) ? value : quoted(value) }));

/** Filters this server answers: comparisons with eq joined by and, with what each compares. */
const supportedFilter = (values: string[]) =>
  fc.array(fc.tuple(fc.constantFrom(...PATHS), valueToken(values), fc.constantFrom('and', 'AND', 'And')), { minLength: 1, maxLength: 3 }).map((parts) => ({
    filter: parts.map(([path, { token }], i) => `${i > 0 ? ` ${parts[i - 1]![2]} ` : ''}${path} eq ${token}`).join(''),
    conditions: parts.map(([path, { value }]) => ({ path: path.toLowerCase(), value })),
  }));

/** Anything shaped like a filter: tokens of the grammar in any order, with stray quotes, brackets and parens. */
const filterLike = fc
  .array(
    fc.oneof(
      fc.constantFrom(...PATHS, ...UNSUPPORTED, ...OPERATORS, ...JOINERS, '(', ')', '"', '\\"', '"\\u00', '[type eq "work"]', 'true', 'null', '1'),
      valueToken(['x']).map((v) => v.token),
      fc.string({ unit: 'binary', maxLength: 6 }),
    ),
    { maxLength: 14 },
  )
  .chain((tokens) => fc.constantFrom(' ', '  ', '\t', '\n', '').map((separator) => tokens.join(separator)));

describe('SCIM filter parser, fuzzed', () => {
  it('parses a supported filter into exactly its comparisons', () => {
    const attributeOf: Record<string, string> = { username: 'userName', externalid: 'externalId', id: 'id' };
    fc.assert(
      fc.property(supportedFilter(['ada', 'x y', '']), ({ filter, conditions }) => {
        const expected = conditions.map(({ path, value }) => ({ attribute: attributeOf[path] ?? 'email', value }));
        assert.deepEqual(parseFilter(filter), expected, filter);
      }),
      { numRuns: 3_000 },
    );
  });

  it('answers anything else with invalidFilter naming the filter, never another error, and fast', () => {
    fc.assert(
      fc.property(fc.oneof(filterLike, fc.string({ unit: 'binary', maxLength: 1100 })), (filter) => {
        const started = performance.now();
        try {
          for (const condition of parseFilter(filter)) assert.ok(['userName', 'externalId', 'id', 'email'].includes(condition.attribute), filter);
        } catch (error) {
          assert.ok(error instanceof ScimError, `${JSON.stringify(filter)} threw ${String(error)}`);
          assert.equal(error.code, 'invalidFilter', filter);
          assert.match(error.message, /^filter: /, filter);
        }
        // Linear work takes well under a millisecond; the bound (loose, for a busy shared machine) catches backtracking blow-ups.
        assert.ok(performance.now() - started < 500, `${JSON.stringify(filter)} took ${performance.now() - started} ms`);
      }),
      { numRuns: 20_000 },
    );
  });
});

for (const backend of backends()) {
  describe(`GET /scim/v2/Users?filter=…, fuzzed, on ${backend.name}`, () => {
    let t: FuzzService;
    let tenant: ScimTenant;
    let users: { id: string; userName: string; externalId?: string; email?: string }[];
    const values: string[] = [];

    before(async () => {
      t = await startFuzzService(backend);
      tenant = await scimTenant(t);
      users = [];
      for (const user of USERS) {
        const created = await tenant.call('POST', '/Users', user);
        assert.equal(created.status, 201, JSON.stringify(created.body));
        const emails = (user.emails ?? []) as { type?: string; value: string; primary?: boolean }[];
        const email = emails.find((e) => e.type === 'work') ?? emails.find((e) => e.primary) ?? emails[0];
        users.push({ id: created.body.id, userName: user.userName, externalId: user.externalId, email: email?.value });
      }
      for (const user of users)
        values.push(
          user.id,
          user.userName,
          user.userName.toUpperCase(),
          user.userName.normalize('NFD'),
          ...[user.externalId, user.email].filter((v) => v !== undefined),
        );
    });
    after(() => t?.close());

    /** What a supported filter must find, by RFC 7643's caseExact rules (userName and emails fold case, the others not). */
    const expected = (conditions: { path: string; value: string }[]) =>
      users
        .filter((user) =>
          conditions.every(({ path, value }) => {
            if (path === 'username') return caseKey(user.userName) === caseKey(value);
            if (path === 'externalid') return user.externalId === value;
            if (path === 'id') return user.id === value;
            return user.email !== undefined && caseKey(user.email) === caseKey(value);
          }),
        )
        .map((user) => user.id);

    it('finds exactly the users a supported filter names', async () => {
      await fc.assert(
        fc.asyncProperty(supportedFilter(values), async ({ filter, conditions }) => {
          const response = await tenant.call('GET', `/Users?filter=${encodeURIComponent(filter)}`);
          assert.equal(response.status, 200, `${filter} → ${JSON.stringify(response.body)}`);
          const found = response.body.Resources.map((user: { id: string }) => user.id).sort();
          assert.deepEqual(found, expected(conditions).sort(), filter);
          assert.equal(response.body.totalResults, found.length, filter);
        }),
        { numRuns: runs(backend, 150) },
      );
    });

    it('answers any other filter or query with a SCIM Error (invalidFilter, invalidSyntax, invalidValue), never a 5xx, writing nothing', async () => {
      const parameter = fc.oneof(
        { weight: 4, arbitrary: fc.oneof(filterLike, fc.string({ unit: 'binary', maxLength: 1100 })).map((f) => `filter=${encodeURIComponent(f)}`) },
        { weight: 1, arbitrary: fc.constantFrom('filter=%zz', 'filter=%', 'filter', 'filter=', 'filter=a&filter=b', 'count=-1', 'count=1e3', 'startIndex=x') },
        {
          weight: 1,
          arbitrary: fc.tuple(fc.constantFrom('startIndex', 'count', 'attributes', 'excludedAttributes', 'sortBy', 'bogus'), fc.string({ maxLength: 12 })),
        },
      );
      const query = fc
        .array(parameter, { minLength: 1, maxLength: 3 })
        .map((parts) => parts.map((p) => (typeof p === 'string' ? p : `${p[0]}=${encodeURIComponent(p[1])}`)).join('&'));
      await fc.assert(
        fc.asyncProperty(query, async (q) => {
          const before = await t.snapshot();
          const response = await scimCall(t.url, tenant.token, 'GET', `/Users?${q}`);
          if (response.status === 200) {
            assert.ok(Array.isArray(response.body.Resources), q);
            return;
          }
          const scimType = assertScimRefusal(response, q);
          assert.ok(['invalidFilter', 'invalidSyntax', 'invalidValue'].includes(scimType ?? ''), `${q} → ${JSON.stringify(response.body)}`);
          assertNothingWritten(before, await t.snapshot(), q);
        }),
        { numRuns: runs(backend, 200) },
      );
    });

    it('regression: U+0000 in a filter value or a User id answered 500 on PostgreSQL', async () => {
      for (const filter of ['userName eq "\\u0000"', 'externalId eq a\u0000b']) {
        const response = await tenant.call('GET', `/Users?filter=${encodeURIComponent(filter)}`);
        assertScimRefusal(response, filter);
        assert.deepEqual(
          [response.body.scimType, response.body.detail],
          ['invalidFilter', 'filter: a value must not contain the NUL character (U+0000)'],
          filter,
        );
      }
      for (const method of ['GET', 'PUT', 'PATCH', 'DELETE']) {
        const body = method === 'PUT' || method === 'PATCH' ? {} : undefined;
        const response = await scimCall(t.url, tenant.token, method, '/Users/%00', body);
        assert.equal(assertScimRefusal(response, method), undefined);
        assert.equal(response.status, 404, `${method} → ${JSON.stringify(response.body)}`);
      }
    });
  });
}
