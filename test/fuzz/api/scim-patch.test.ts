import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { scimErrorStatus } from '../../../src/errors/catalogue.ts';
import { applyPatch, PATCH_SCHEMA, parsePatchBody } from '../../../src/scim-user/patch.ts';
import { parsePatchPath } from '../../../src/scim-user/patch-path.ts';
import { ENTERPRISE_SCHEMA } from '../../../src/scim-user/schema.ts';
import { ScimError } from '../../../src/scim-user/scim-error.ts';
import { normaliseUser } from '../../../src/scim-user/user-resource.ts';
import { backends } from '../../helpers/backends.ts';
import { type ScimTenant, scimCall, scimTenant } from '../../scim/scim-helpers.ts';
import { assertNothingWritten, assertScimRefusal, type FuzzService, runs, startFuzzService } from './fuzz-service.ts';

const USER = {
  userName: 'grace@example.com',
  name: { givenName: 'Grace', familyName: 'Hopper' },
  emails: [{ type: 'work', value: 'grace@example.com', primary: true }],
  [ENTERPRISE_SCHEMA]: { department: 'Navy', manager: { value: 'm-1' } },
};

/** Paths as Entra and Okta send them, read-only ones, malformed ones, and extensions this server has no schema for. */
const PATHS = [
  'userName',
  'active',
  'displayName',
  'name.givenName',
  'name.nickname',
  'emails',
  'emails[type eq "work"].value',
  'emails[type eq "work"]',
  'emails[TYPE EQ "home"].primary',
  'emails.value',
  'emails[value co "x"].value',
  'userName[type eq "work"]',
  'phoneNumbers[type eq "mobile"].value',
  'addresses[type eq "work"].locality',
  'manager',
  'department',
  `${ENTERPRISE_SCHEMA}:manager`,
  `${ENTERPRISE_SCHEMA}:manager.value`,
  ENTERPRISE_SCHEMA,
  'urn:example:custom:1.0:User:badge',
  'urn:example:custom:1.0:User:badge[type eq "x"].value',
  'urn:example:custom:1.0:User',
  'urn:x:y:constructor',
  'urn:x:y:__proto__',
  'id',
  'meta',
  'meta.lastModified',
  'groups',
  'schemas',
  'password',
  'nonexistent',
  'emails[type eq "work"',
  'emails[]',
  'name..givenName',
  'constructor',
  '__proto__',
];

const json = fc.jsonValue({ maxDepth: 3 });
/** Values of the shapes the User schema has, plus anything at all. */
const value = fc.oneof(
  fc.constantFrom('x', '', 'True', 'false', true, false, null, [], {}, 'ada@example.com', 'not an address', 'a@x.example, b@y.example', 'x'.repeat(1025)),
  fc.record(
    { value: fc.oneof(fc.string({ maxLength: 20 }), json), type: fc.constantFrom('work', 'home', 'other'), primary: fc.boolean() },
    { requiredKeys: [] },
  ),
  fc.array(fc.record({ value: fc.string({ maxLength: 20 }), type: fc.constantFrom('work', 'home') }), { maxLength: 3 }),
  fc.dictionary(fc.constantFrom(...PATHS, 'givenName', 'value', 'displayName'), json, { maxKeys: 3 }),
  json,
);
const operationMembers = {
  op: fc.oneof({ weight: 20, arbitrary: fc.constantFrom('add', 'replace', 'remove', 'Add', 'REPLACE', 'Remove') }, { weight: 1, arbitrary: json }),
  path: fc.oneof({ weight: 16, arbitrary: fc.constantFrom(...PATHS) }, { weight: 2, arbitrary: fc.string({ maxLength: 30 }) }, { weight: 1, arbitrary: json }),
  value,
};
/** Mostly all three members, as providers send them; else any of path and value left out (Okta's path-less form). */
const operation = fc.oneof(
  { weight: 4, arbitrary: fc.record(operationMembers) },
  { weight: 1, arbitrary: fc.record(operationMembers, { requiredKeys: ['op'] }) },
);
const patchOp = fc.oneof(
  { weight: 12, arbitrary: fc.array(operation, { minLength: 1, maxLength: 3 }).map((Operations) => ({ schemas: [PATCH_SCHEMA], Operations })) },
  { weight: 1, arbitrary: fc.record({ schemas: json, Operations: json, extra: json }, { requiredKeys: [] }) },
  { weight: 1, arbitrary: json },
);

/** Every failure of a SCIM parser is a ScimError of the catalogue: never a TypeError, never a stack. */
function expectScimError(run: () => unknown, input: unknown): void {
  try {
    run();
  } catch (error) {
    assert.ok(error instanceof ScimError, `${JSON.stringify(input)?.slice(0, 300)} threw ${String(error)}`);
    assert.ok(Object.hasOwn(scimErrorStatus, error.code), error.code);
  }
}

describe('SCIM PATCH parsers, fuzzed', () => {
  it('parsePatchPath answers any string with a target or a ScimError', () => {
    fc.assert(
      fc.property(fc.oneof(fc.constantFrom(...PATHS), fc.string({ unit: 'binary', maxLength: 600 })), (path) =>
        expectScimError(() => parsePatchPath(path), path),
      ),
      { numRuns: 5_000 },
    );
  });

  it('parsePatchBody and applyPatch answer any body with a valid User or a ScimError, leaving the stored User untouched', () => {
    const stored = normaliseUser(USER);
    const copy = structuredClone(stored);
    fc.assert(
      fc.property(patchOp, (body) =>
        expectScimError(() => {
          const patched = applyPatch(stored, parsePatchBody(body));
          // What a PATCH stores is itself a User this server would accept.
          assert.deepEqual(normaliseUser(patched), patched, JSON.stringify(body));
        }, body),
      ),
      { numRuns: 5_000 },
    );
    assert.deepEqual(stored, copy);
  });
});

for (const backend of backends()) {
  describe(`PATCH /scim/v2/Users/{id}, fuzzed, on ${backend.name}`, () => {
    let t: FuzzService;
    let tenant: ScimTenant;
    let id: string;

    before(async () => {
      t = await startFuzzService(backend);
      tenant = await scimTenant(t);
      const created = await tenant.call('POST', '/Users', USER);
      assert.equal(created.status, 201, JSON.stringify(created.body));
      id = created.body.id;
      // Another user, so that a PATCH may collide with its userName (409 uniqueness).
      assert.equal((await tenant.call('POST', '/Users', { userName: 'x' })).status, 201);
    });
    after(() => t?.close());

    const patch = async (body: string | Uint8Array, contentType: string, context: string) => {
      const before = await t.snapshot();
      const stored = await tenant.call('GET', `/Users/${id}`);
      const response = await scimCall(t.url, tenant.token, 'PATCH', `/Users/${id}`, body, { 'content-type': contentType });
      if (response.status === 200) {
        assert.deepEqual((await tenant.call('GET', `/Users/${id}`)).body, response.body, context);
        return;
      }
      assertScimRefusal(response, context);
      // RFC 7644 §3.5.2: a PATCH is atomic; refused, the resource is as it was.
      assert.deepEqual((await tenant.call('GET', `/Users/${id}`)).body, stored.body, context);
      assertNothingWritten(before, await t.snapshot(), context);
    };

    it('applies a PatchOp whole or refuses it with a SCIM Error, never a 5xx, the User unchanged', async () => {
      await fc.assert(
        fc.asyncProperty(patchOp, async (body) => patch(JSON.stringify(body), 'application/scim+json', JSON.stringify(body).slice(0, 500))),
        { numRuns: runs(backend, 250) },
      );
    });

    it('refuses bytes that are not a PatchOp, whatever the media type, never a 5xx', async () => {
      const bytes = fc.oneof(
        fc.uint8Array({ maxLength: 200 }),
        fc.string({ unit: 'binary', maxLength: 100 }).map((s) => new TextEncoder().encode(s)),
      );
      const contentType = fc.constantFrom(
        'application/scim+json',
        'application/json',
        'application/scim+json; charset=utf-8',
        'text/plain',
        'application/x-www-form-urlencoded',
      );
      await fc.assert(
        fc.asyncProperty(bytes, contentType, async (body, type) => patch(body, type, `${type} ${Buffer.from(body).toString('base64')}`)),
        { numRuns: runs(backend, 100) },
      );
    });

    it('regression: a PATCH answer listed schemas in another order than the User read back on PostgreSQL', async () => {
      // The property's counterexample: JSONB does not keep member order, and schemas was listed from it.
      const body = {
        schemas: [PATCH_SCHEMA],
        Operations: [{ op: 'Add', path: 'urn:example:custom:1.0:User:badge', value: [3.9583959663568554e298, -6.60800054195167e84, null, '&,S&Wl+l]'] }],
      };
      const fresh = (await tenant.call('POST', '/Users', { ...USER, userName: 'order@example.com' })).body.id;
      const response = await tenant.call('PATCH', `/Users/${fresh}`, body);
      assert.equal(response.status, 200, JSON.stringify(response.body));
      assert.deepEqual(response.body.schemas, ['urn:ietf:params:scim:schemas:core:2.0:User', 'urn:example:custom:1.0:User', ENTERPRISE_SCHEMA]);
      assert.deepEqual((await tenant.call('GET', `/Users/${fresh}`)).body, response.body);
    });

    it('regression: a value holding U+0000 answered 500 on PostgreSQL (JSONB cannot hold it)', async () => {
      const operations = [
        { op: 'add', path: 'urn:example:custom:1.0:User:badge', value: ['\u0000'] },
        { op: 'replace', path: 'displayName', value: 'a\u0000' },
        { op: 'add', value: { 'urn:x:y:\u0000': { k: 1 } } },
      ];
      for (const operation of operations) {
        const body = JSON.stringify({ schemas: [PATCH_SCHEMA], Operations: [operation] });
        await patch(body, 'application/scim+json', body);
        const response = await tenant.call('PATCH', `/Users/${id}`, body);
        assert.equal(response.body.scimType, 'invalidValue', body);
        assert.match(response.body.detail, /: must not contain the NUL character \(U\+0000\)$/, body);
      }
      assert.equal(
        (await tenant.call('POST', '/Users', { userName: 'nul', nickName: '\u0000' })).body.detail,
        'nickName: must not contain the NUL character (U+0000)',
      );
    });
  });
}
