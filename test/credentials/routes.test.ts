import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Type } from 'typebox';
import { credentialTypeContext } from '../../src/credentials/context.ts';
import type { CredentialType } from '../../src/credentials/credential-type.ts';
import { invalidField } from '../../src/errors/api-error.ts';
import { backends } from '../helpers/backends.ts';
import { errorCodes, startTestService, TEST_SECRET, type TestOrg, type TestService } from '../helpers/service.ts';

/**
 * A credential type as the real ones are built: a schema, a rule the schema cannot state, a
 * secret kept sealed and a keyed hash, and params shown back. Named 'password' and 'totp' so
 * the routes see real type names; nothing here verifies anything.
 */
const testPassword: CredentialType = {
  type: 'password',
  paramsSchema: Type.Object({ password_hash: Type.String({ minLength: 1, maxLength: 200 }) }, { additionalProperties: false }),
  async prepare(params, context) {
    const { password_hash: hash } = params as { password_hash: string };
    if (!hash.startsWith('$test$')) throw invalidField('body.params.password_hash', 'must be a $test$ hash');
    return { params: { password_hash: hash }, secret: { sealed: context.seal(hash), keyed: context.hashCode(hash) } };
  },
  present: (stored) => ({ password_hash: stored.params.password_hash }),
};

const testTotp: CredentialType = {
  type: 'totp',
  paramsSchema: Type.Object({ recovery_codes_total: Type.Integer({ minimum: 0 }) }, { additionalProperties: false }),
  async prepare(params) {
    const { recovery_codes_total: total } = params as { recovery_codes_total: number };
    return { params: { recovery_codes_total: total }, secret: { codes: [] } };
  },
  present: (stored) => ({ recovery_codes_total: stored.params.recovery_codes_total, recovery_codes_unused: 0 }),
};

for (const backend of backends()) {
  describe(`Credentials API on ${backend.name}`, () => {
    let svc: TestService;
    let org: TestOrg;
    let personId: string;
    const newPerson = async (as: TestOrg = org) => (await svc.call('POST', '/persons', { as, body: {} })).body.result.id as string;

    before(async () => {
      svc = await startTestService(backend, {}, { credentialTypes: [testPassword, testTotp] });
      org = await svc.org();
      personId = await newPerson();
    });
    after(() => svc.close());

    it('creates a credential (201, spec §2.3 shape, no secret), lists it and deletes it', async () => {
      const created = await svc.call('POST', `/persons/${personId}/credentials`, {
        as: org,
        body: { type: 'password', params: { password_hash: '$test$abc' }, label: 'imported' },
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const { id } = created.body.result;
      assert.match(id, /^crd_[0-9a-z]{26}$/);
      assert.deepEqual(created.body, { result: { id, last_used: null, type: 'password', params: { password_hash: '$test$abc' }, label: 'imported' } });

      const listed = await svc.call('GET', `/persons/${personId}/credentials`, { as: org });
      assert.equal(listed.status, 200);
      assert.deepEqual(listed.body.result, [created.body.result]);
      assert.equal(listed.body.meta.cursor_pagination.total_count, 1);

      const stored = await svc.service.store.getCredential(org.orgId, personId, id);
      const sealed = String(stored?.secret?.sealed);
      assert.equal(credentialTypeContext(TEST_SECRET).open(sealed), '$test$abc', 'sealed under the credential purpose');
      assert.ok(!JSON.stringify(listed.body).includes(sealed) && !JSON.stringify(listed.body).includes(String(stored?.secret?.keyed)));

      const deleted = await svc.call('DELETE', `/persons/${personId}/credentials/${id}`, { as: org });
      assert.equal(deleted.status, 204);
      assert.deepEqual((await svc.call('GET', `/persons/${personId}/credentials`, { as: org })).body.result, []);
      const again = await svc.call('DELETE', `/persons/${personId}/credentials/${id}`, { as: org });
      assert.equal(again.status, 404);
      assert.match(again.body.errors[0].message, /^path\.credential_id: /);

      const events = await svc.call('GET', '/audit/events?type=credential.created', { as: org });
      assert.deepEqual(
        events.body.result.map((e: { data: Record<string, unknown> }) => [e.data.credential_id, e.data.credential_type]),
        [[id, 'password']],
      );
    });

    it('omits an absent label and lets each type present its own params', async () => {
      const created = await svc.call('POST', `/persons/${personId}/credentials`, { as: org, body: { type: 'totp', params: { recovery_codes_total: 4 } } });
      assert.equal(created.status, 201);
      assert.deepEqual(Object.keys(created.body.result).sort(), ['id', 'last_used', 'params', 'type']);
      assert.deepEqual(created.body.result.params, { recovery_codes_total: 4, recovery_codes_unused: 0 });
    });

    const refusals: [string, unknown, string][] = [
      ['no body', undefined, 'body: must be an object'],
      ['an array', [], 'body: must be an object'],
      ['no type', { params: {} }, 'body.type: is required'],
      ['an unknown type', { type: 'md5', params: {} }, 'body.type: must be one of password, totp'],
      ['a type that is not a string', { type: 7, params: {} }, 'body.type: must be one of password, totp'],
      ['no params', { type: 'password' }, 'body.params: is required'],
      ['params missing a field', { type: 'password', params: {} }, 'body.params.password_hash: is required'],
      ['params of the wrong type', { type: 'password', params: { password_hash: 5 } }, 'body.params.password_hash: must be a string'],
      ['an unknown params field', { type: 'password', params: { password_hash: '$test$x', salt: 'y' } }, 'body.params.salt: is not a known field'],
      ['an unknown field', { type: 'password', params: { password_hash: '$test$x' }, owner: 'me' }, 'body.owner: is not a known field'],
      ['an empty label', { type: 'password', params: { password_hash: '$test$x' }, label: '' }, 'body.label: must NOT have fewer than 1 characters'],
      ['a rule of the type', { type: 'password', params: { password_hash: 'plain' } }, 'body.params.password_hash: must be a $test$ hash'],
    ];
    for (const [what, body, message] of refusals) {
      it(`refuses ${what} with 400 naming the field, storing nothing`, async () => {
        const someone = await newPerson();
        const response = await svc.call('POST', `/persons/${someone}/credentials`, { as: org, body });
        assert.equal(response.status, 400);
        assert.deepEqual(errorCodes(response.body), ['INVALID_FIELD']);
        assert.equal(response.body.errors[0].message, message);
        assert.deepEqual((await svc.call('GET', `/persons/${someone}/credentials`, { as: org })).body.result, []);
      });
    }

    it("answers 404 naming path.person_id for a person not of the organisation, and never touches another's credential", async () => {
      const other = await svc.org();
      const theirs = await newPerson(other);
      const body = { type: 'password', params: { password_hash: '$test$abc' } };
      for (const [method, path] of [
        ['POST', `/persons/${theirs}/credentials`],
        ['GET', `/persons/${theirs}/credentials`],
        ['DELETE', `/persons/${theirs}/credentials/crd_x`],
        ['POST', '/persons/per_nobody/credentials'],
      ] as const) {
        const response = await svc.call(method, path, { as: org, ...(method === 'POST' ? { body } : {}) });
        assert.equal(response.status, 404, `${method} ${path}`);
        assert.equal(response.body.errors[0].message, 'path.person_id: no person of this organisation has this id');
      }
      const mine = (await svc.call('POST', `/persons/${personId}/credentials`, { as: org, body })).body.result.id;
      const someoneElse = await newPerson();
      const wrongPerson = await svc.call('DELETE', `/persons/${someoneElse}/credentials/${mine}`, { as: org });
      assert.equal(wrongPerson.status, 404);
      assert.match(wrongPerson.body.errors[0].message, /^path\.credential_id: /);
      assert.equal((await svc.service.store.getCredential(org.orgId, personId, mine))?.id, mine);
    });

    it('pages with opaque cursors like every list', async () => {
      const someone = await newPerson();
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) {
        const r = await svc.call('POST', `/persons/${someone}/credentials`, { as: org, body: { type: 'totp', params: { recovery_codes_total: i } } });
        ids.push(r.body.result.id);
      }
      const first = await svc.call('GET', `/persons/${someone}/credentials?limit=2`, { as: org });
      assert.deepEqual(
        first.body.result.map((c: { id: string }) => c.id),
        ids.slice(0, 2),
      );
      assert.equal(first.body.meta.cursor_pagination.total_count, 3);
      const next = await svc.call('GET', `/persons/${someone}/credentials?limit=2&cursor=${first.body.meta.cursor_pagination.next_cursor}`, { as: org });
      assert.deepEqual(
        next.body.result.map((c: { id: string }) => c.id),
        ids.slice(2),
      );
      assert.equal(next.body.meta.cursor_pagination.next_cursor, undefined);
      const foreign = await svc.call('GET', `/persons/${someone}/credentials?cursor=${Buffer.from('["persons","a","per_x"]').toString('base64url')}`, {
        as: org,
      });
      assert.deepEqual(errorCodes(foreign.body), ['INVALID_CURSOR']);
    });

    it('needs an admin key', async () => {
      const made = await svc.call('POST', '/organizations/api-keys', { as: org, body: { name: 'integration', kind: 'integration' } });
      const integration = { 'service-orgid': org.orgId, 'service-api-key': made.body.result.api_key };
      const response = await svc.call('GET', `/persons/${personId}/credentials`, { as: integration });
      assert.deepEqual(errorCodes(response.body), ['FORBIDDEN']);
      assert.deepEqual(errorCodes((await svc.call('GET', `/persons/${personId}/credentials`)).body), ['INVALID_HEADER']);
    });

    it('shows the request and the response as a oneOf on type in the OpenAPI document', async () => {
      const { body: openapi } = await svc.call('GET', '/openapi.json');
      const post = openapi.paths['/persons/{person_id}/credentials'].post;
      const request = post.requestBody.content['application/json'].schema;
      // The document renders each branch's constant `type` as a one-value enum.
      const typeOf = (branch: { properties: { type: { enum: string[] } } }) => branch.properties.type.enum;
      assert.deepEqual(request.oneOf.map(typeOf), [['password'], ['totp']]);
      assert.deepEqual(request.discriminator, { propertyName: 'type' });
      assert.deepEqual(request.oneOf[0].properties.params.required, ['password_hash']);
      const response = post.responses['201'].content['application/json'].schema.properties.result;
      assert.deepEqual(response.oneOf.map(typeOf), [['password'], ['totp']]);
    });
  });

  describe(`Credentials API with no type enabled, on ${backend.name}`, () => {
    let svc: TestService;
    before(async () => {
      svc = await startTestService(backend, {}, { credentialTypes: [] });
    });
    after(() => svc.close());

    it('refuses every create naming body.type, and lists an empty list', async () => {
      const org = await svc.org();
      const person = (await svc.call('POST', '/persons', { as: org, body: {} })).body.result.id;
      const response = await svc.call('POST', `/persons/${person}/credentials`, { as: org, body: { type: 'password', params: {} } });
      assert.equal(response.status, 400);
      assert.equal(response.body.errors[0].message, 'body.type: no credential type is enabled on this service');
      assert.deepEqual((await svc.call('GET', `/persons/${person}/credentials`, { as: org })).body.result, []);
    });
  });
}
