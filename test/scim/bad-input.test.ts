import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { backends } from '../helpers/backends.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { assertScimError, type ScimTenant, scimCall, scimTenant } from './scim-helpers.ts';

const CORE = 'urn:ietf:params:scim:schemas:core:2.0:User';
const PATCH = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
const valid = { schemas: [CORE], userName: 'grace@example.com', emails: [{ type: 'work', value: 'grace@example.com', primary: true }] };
const patch = (...Operations: unknown[]) => ({ schemas: [PATCH], Operations });

for (const backend of backends()) {
  describe(`SCIM bad input and edges on ${backend.name}`, () => {
    let t: TestService;
    let tenant: ScimTenant;
    let id: string;
    before(async () => {
      t = await startTestService(backend);
      tenant = await scimTenant(t);
      const created = await tenant.call('POST', '/Users', { ...valid, password: 'p4ssw0rd-never-kept' });
      assert.equal(created.status, 201);
      id = created.body.id;
    });
    after(() => t.close());

    it('never stores or returns a password', async () => {
      const stored = await t.service.store.getIdentity(tenant.org.orgId, tenant.connectionId, id);
      assert.ok(stored && !JSON.stringify(stored).includes('p4ssw0rd'));
      assert.equal((await tenant.call('GET', `/Users/${id}`)).body.password, undefined);
    });

    const users: [string, unknown, string][] = [
      ['a body that is not an object', [valid], 'invalidSyntax'],
      ['userName missing', { schemas: [CORE] }, 'invalidValue'],
      ['userName of the wrong type', { userName: 42 }, 'invalidValue'],
      ['userName empty', { userName: '  ' }, 'invalidValue'],
      ['userName too long', { userName: 'u'.repeat(257) }, 'invalidValue'],
      ['an unknown attribute', { userName: 'x', favouriteColour: 'blue' }, 'invalidSyntax'],
      ['a dotted attribute name', { userName: 'x', 'name.givenName': 'A' }, 'invalidSyntax'],
      ['an unknown sub-attribute', { userName: 'x', name: { nickname: 'A' } }, 'invalidSyntax'],
      ['active of the wrong type', { userName: 'x', active: 'yes' }, 'invalidValue'],
      ['emails not objects', { userName: 'x', emails: ['a@example.com'] }, 'invalidValue'],
      ['an email value of the wrong type', { userName: 'x', emails: [{ value: 7 }] }, 'invalidValue'],
      ['a string too long', { userName: 'x', displayName: 'd'.repeat(1025) }, 'invalidValue'],
      ['too many values', { userName: 'x', emails: Array.from({ length: 101 }, (_, i) => ({ value: `${i}@example.com` })) }, 'invalidValue'],
      ['schemas not an array', { userName: 'x', schemas: CORE }, 'invalidSyntax'],
    ];
    for (const [what, body, scimType] of users) {
      it(`POST and PUT /Users refuse ${what} (400 ${scimType})`, async () => {
        assertScimError(await tenant.call('POST', '/Users', body), 400, scimType);
        assertScimError(await tenant.call('PUT', `/Users/${id}`, body), 400, scimType);
      });
    }

    it('refuses a duplicate userName whatever its case with 409 uniqueness, on create and on change', async () => {
      assertScimError(await tenant.call('POST', '/Users', { ...valid, userName: 'GRACE@example.COM' }), 409, 'uniqueness');
      const other = await tenant.call('POST', '/Users', { userName: 'other@example.com' });
      assertScimError(
        await tenant.call('PATCH', `/Users/${other.body.id}`, patch({ op: 'replace', path: 'userName', value: 'Grace@Example.com' })),
        409,
        'uniqueness',
      );
      assert.equal((await tenant.call('DELETE', `/Users/${other.body.id}`)).status, 204);
    });

    const filters: [string, string][] = [
      ['an empty filter', ''],
      ['an unsupported operator', 'userName co "grace"'],
      ['ne', 'userName ne "grace"'],
      ['pr', 'title pr'],
      ['or', 'userName eq "a" or userName eq "b"'],
      ['grouping', '(userName eq "a")'],
      ['not', 'not (userName eq "a")'],
      ['an unsupported attribute', 'displayName eq "Grace"'],
      ['an unclosed quote', 'userName eq "grace'],
      ['a bad escape', 'userName eq "\\x"'],
      ['a dangling and', 'userName eq "a" and'],
      ['a missing value', 'userName eq'],
      ['unbalanced brackets', 'emails[type eq "work".value eq "a"'],
      ['a filter too long', `userName eq "${'a'.repeat(1100)}"`],
    ];
    for (const [what, filter] of filters) {
      it(`answers 400 invalidFilter for ${what}`, async () => {
        assertScimError(await tenant.call('GET', `/Users?filter=${encodeURIComponent(filter)}`), 400, 'invalidFilter');
      });
    }

    it('filters by userName (any case, + as a space), externalId, id, work email and and', async () => {
      const total = async (filter: string) => (await tenant.call('GET', `/Users?filter=${filter}`)).body.totalResults;
      assert.equal(await total('userName+eq+%22GRACE%40example.com%22'), 1);
      assert.equal(await total(encodeURIComponent(`id eq "${id}"`)), 1);
      assert.equal(await total(encodeURIComponent('emails.value eq "Grace@Example.com"')), 1);
      assert.equal(await total(encodeURIComponent('userName eq "grace@example.com" and emails[type eq "work"].value eq "grace@example.com"')), 1);
      assert.equal(await total(encodeURIComponent('userName eq "grace@example.com" AND externalId eq "nope"')), 0);
    });

    it('pages with startIndex and count, and refuses what it does not know', async () => {
      for (const name of ['p1', 'p2', 'p3']) await tenant.call('POST', '/Users', { userName: name });
      const page = await tenant.call('GET', '/Users?startIndex=2&count=2');
      assert.deepEqual([page.body.totalResults, page.body.itemsPerPage, page.body.startIndex], [4, 2, 2]);
      assert.deepEqual(
        page.body.Resources.map((r: { userName: string }) => r.userName),
        ['p1', 'p2'],
      );
      const clamped = await tenant.call('GET', '/Users?startIndex=0&count=-5');
      assert.deepEqual([clamped.body.startIndex, clamped.body.itemsPerPage, clamped.body.Resources], [1, 0, []]);
      const projected = await tenant.call('GET', '/Users?count=1&attributes=userName');
      assert.deepEqual(Object.keys(projected.body.Resources[0]).sort(), ['id', 'meta', 'schemas', 'userName']);
      const excluded = await tenant.call('GET', '/Users?count=1&excludedAttributes=emails');
      assert.equal(excluded.body.Resources[0].emails, undefined);
      assertScimError(await tenant.call('GET', '/Users?count=ten'), 400, 'invalidValue');
      assertScimError(await tenant.call('GET', '/Users?colour=blue'), 400, 'invalidSyntax');
      assertScimError(await tenant.call('GET', '/Users?count=1&count=2'), 400, 'invalidSyntax');
    });

    const paths: [string, unknown, number, string][] = [
      ['an unknown attribute', { op: 'replace', path: 'favouriteColour', value: 'x' }, 400, 'invalidPath'],
      ['an unknown sub-attribute', { op: 'replace', path: 'name.nickname', value: 'x' }, 400, 'invalidPath'],
      [
        'an unknown Enterprise attribute',
        { op: 'replace', path: 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:shoeSize', value: '9' },
        400,
        'invalidPath',
      ],
      ['a filter on a single-valued attribute', { op: 'replace', path: 'userName[type eq "work"]', value: 'x' }, 400, 'invalidPath'],
      ['a filter on an unknown sub-attribute', { op: 'replace', path: 'emails[kind eq "work"].value', value: 'x' }, 400, 'invalidPath'],
      ['a filter that is not an equality', { op: 'replace', path: 'emails[type co "w"].value', value: 'x' }, 400, 'invalidPath'],
      ['a multi-valued sub-attribute without a filter', { op: 'replace', path: 'emails.value', value: 'x' }, 400, 'invalidPath'],
      ['path syntax', { op: 'replace', path: 'name..givenName', value: 'x' }, 400, 'invalidPath'],
      ['an empty path', { op: 'replace', path: '', value: 'x' }, 400, 'invalidPath'],
      ['a path-less key that is no attribute', { op: 'replace', value: { shoeSize: 9 } }, 400, 'invalidPath'],
      ['id', { op: 'replace', path: 'id', value: 'mine' }, 400, 'mutability'],
      ['an unsupported op', { op: 'move', path: 'userName', value: 'x' }, 400, 'invalidSyntax'],
      ['op missing', { path: 'userName', value: 'x' }, 400, 'invalidSyntax'],
      ['an unknown member', { op: 'add', path: 'nickName', value: 'x', from: 'y' }, 400, 'invalidSyntax'],
      ['value missing', { op: 'replace', path: 'nickName' }, 400, 'invalidValue'],
      ['a path-less remove', { op: 'remove' }, 400, 'noTarget'],
      ['a path-less value that is not an object', { op: 'replace', value: 'x' }, 400, 'invalidValue'],
      ['a value of the wrong type', { op: 'replace', path: 'active', value: 'maybe' }, 400, 'invalidValue'],
      ['removing userName', { op: 'remove', path: 'userName' }, 400, 'invalidValue'],
    ];
    for (const [what, operation, status, scimType] of paths) {
      it(`PATCH refuses ${what} (${status} ${scimType}) and changes nothing`, async () => {
        const before = (await tenant.call('GET', `/Users/${id}`)).body;
        assertScimError(await tenant.call('PATCH', `/Users/${id}`, patch({ op: 'add', path: 'nickName', value: 'first' }, operation)), status, scimType);
        assert.deepEqual((await tenant.call('GET', `/Users/${id}`)).body, before);
      });
    }

    it('PATCH refuses malformed PatchOp bodies', async () => {
      assertScimError(await tenant.call('PATCH', `/Users/${id}`, { schemas: [PATCH] }), 400, 'invalidSyntax');
      assertScimError(await tenant.call('PATCH', `/Users/${id}`, { schemas: [PATCH], Operations: [] }), 400, 'invalidSyntax');
      assertScimError(
        await tenant.call('PATCH', `/Users/${id}`, { schemas: [CORE], Operations: [{ op: 'add', path: 'nickName', value: 'x' }] }),
        400,
        'invalidSyntax',
      );
      assertScimError(await tenant.call('PATCH', `/Users/${id}`, { ...patch({ op: 'add', path: 'nickName', value: 'x' }), extra: 1 }), 400, 'invalidSyntax');
      assertScimError(await tenant.call('PATCH', '/Users/idn_unknown', patch({ op: 'add', path: 'nickName', value: 'x' })), 404);
    });

    it('PATCH adds a work email by its filter, removes by filter, and re-enables with "True"', async () => {
      const other = (await tenant.call('POST', '/Users', { userName: 'noemail' })).body.id;
      const added = await tenant.call('PATCH', `/Users/${other}`, patch({ op: 'Add', path: 'emails[type eq "work"].value', value: 'n@example.com' }));
      assert.deepEqual(added.body.emails, [{ type: 'work', value: 'n@example.com' }]);
      const off = await tenant.call(
        'PATCH',
        `/Users/${other}`,
        patch({ op: 'Replace', path: 'active', value: 'False' }, { op: 'Remove', path: 'emails[type eq "work"]' }),
      );
      assert.deepEqual([off.body.active, off.body.emails], [false, undefined]);
      const on = await tenant.call('PATCH', `/Users/${other}`, patch({ op: 'Replace', path: 'active', value: 'True' }));
      assert.equal(on.body.active, true);
    });

    it('answers SCIM errors for authentication, routes, media types and JSON', async () => {
      assertScimError(await scimCall(t.url, undefined, 'GET', '/Users'), 401);
      const wrong = await scimCall(t.url, 'tscim_not-a-token', 'GET', '/Users');
      assertScimError(wrong, 401);
      assert.match(wrong.headers.get('www-authenticate') ?? '', /^Bearer/);
      assertScimError(await scimCall(t.url, tenant.token, 'GET', '/Groups'), 404);
      assertScimError(await tenant.call('GET', '/Users/idn_unknown'), 404);
      assertScimError(await tenant.call('DELETE', '/Users/idn_unknown'), 404);
      assertScimError(await tenant.call('POST', '/Users', '{"userName":', { 'content-type': 'application/json' }), 400, 'invalidSyntax');
      assertScimError(await tenant.call('POST', '/Users', 'userName=x', { 'content-type': 'text/plain' }), 415);
      const okta = await tenant.call('GET', '/Users?count=1', undefined, { 'content-type': 'application/scim+json; charset=utf-8' });
      assert.equal(okta.status, 200);
    });

    it('serves the discovery endpoints without a token', async () => {
      const config = await scimCall(t.url, undefined, 'GET', '/ServiceProviderConfig');
      assert.equal(config.status, 200);
      assert.deepEqual([config.body.patch.supported, config.body.filter.supported, config.body.bulk.supported], [true, true, false]);
      const types = await scimCall(t.url, undefined, 'GET', '/ResourceTypes');
      assert.equal(types.body.Resources[0].endpoint, '/Users');
      const schemas = await scimCall(t.url, undefined, 'GET', '/Schemas');
      assert.deepEqual(
        schemas.body.Resources.map((s: { id: string }) => s.id),
        [CORE, 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User'],
      );
      assert.equal((await scimCall(t.url, undefined, 'GET', `/Schemas/${CORE}`)).body.name, 'User');
      assertScimError(await scimCall(t.url, undefined, 'GET', '/Schemas/urn:nope'), 404);
      assertScimError(await scimCall(t.url, undefined, 'GET', '/ResourceTypes/Group'), 404);
    });

    it('audits every change without a password or token', async () => {
      const events = await t.call('GET', '/audit/events?limit=100', { as: tenant.org });
      const types = new Set(events.body.result.map((e: { type: string }) => e.type));
      for (const type of ['scim.user.created', 'scim.user.patched', 'scim.user.deleted']) assert.ok(types.has(type), type);
      const text = JSON.stringify(events.body);
      assert.ok(!text.includes('p4ssw0rd') && !text.includes(tenant.token));
    });
  });
}
