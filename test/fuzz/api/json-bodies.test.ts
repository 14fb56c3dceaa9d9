import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { signedInWithTwoFactors } from '../../helpers/authn.ts';
import { backends } from '../../helpers/backends.ts';
import { createPerson, registerClient } from '../../helpers/oauth.ts';
import type { Response } from '../../helpers/service.ts';
import { holdsForbiddenKey } from '../forbidden-keys.ts';
import { assertApiRefusal, assertNothingWritten, changes, type FuzzService, rawCall, runs, startFuzzService } from './fuzz-service.ts';
import { mutatedBody, type Schema, validValue } from './schema-arbitraries.ts';

/** An operation of GET /openapi.json that takes a JSON body, with its path parameters filled in. */
interface JsonOperation {
  method: string;
  route: string;
  path: string;
  schema: Schema;
  headers: Record<string, string>;
}

/**
 * What a refusal may write, as documented: a failed login is counted and audited
 * (docs/credentials.md, attempt limits); a refused verification attempt is audited and counted
 * against the operator's and the identity's limits (docs/email-verification.md). Every other
 * refusal writes nothing at all.
 */
function allowedWrites(operation: JsonOperation, response: Response): string[] {
  const login = ['/authn/password', '/authn/totp', '/authn/webauthn/verify'].includes(operation.route);
  if (login && (response.status === 401 || response.status === 429)) return ['authn_attempts', 'audit_events'];
  if (/^\/(integrations|helpdesk)\/email-verifications/.test(operation.route)) return ['rate_limits', 'audit_events'];
  return [];
}

for (const backend of backends()) {
  describe(`JSON bodies of every public operation, fuzzed, on ${backend.name}`, () => {
    let t: FuzzService;
    const operations: JsonOperation[] = [];

    before(async () => {
      t = await startFuzzService(backend);
      const org = await t.org();
      const person = await createPerson(t, org);
      const verifier = (
        await t.call('POST', '/persons', {
          as: org,
          body: { handles: [{ type: 'email_address', value: 'verifier@example.com' }], roles: ['verifier'], console: true },
        })
      ).body.result.id;
      const verifierJwt = await signedInWithTwoFactors(t, org, verifier, 'verifier@example.com');
      const integration = (await t.call('POST', '/organizations/api-keys', { as: org, body: { name: 'integration', kind: 'integration' } })).body.result
        .api_key;
      const client = await registerClient(t, org);
      const connection = (await t.call('POST', '/organizations/connections', { as: org, body: { name: 'directory', type: 'scim' } })).body.result.id;
      const ids: Record<string, string> = { person_id: person, client_id: client.id, connection_id: connection };

      const document = (await t.call('GET', '/openapi.json')).body;
      for (const [route, byMethod] of Object.entries<Record<string, any>>(document.paths)) {
        for (const [method, operation] of Object.entries<any>(byMethod)) {
          const schema = operation.requestBody?.content?.['application/json']?.schema;
          if (!schema) continue;
          const usesPersonJwt = (operation.security ?? []).some((s: object) => 'personJwt' in s);
          const headers = usesPersonJwt
            ? { 'service-orgid': org.orgId, authorization: `Bearer ${verifierJwt}` }
            : route.startsWith('/integrations/')
              ? { 'service-orgid': org.orgId, 'service-api-key': integration }
              : org.headers;
          const path = route.replace(/\{(\w+)\}/g, (_, name: string) => ids[name] ?? assert.fail(`no id for path parameter ${name}`));
          operations.push({ method: method.toUpperCase(), route, path, schema, headers });
        }
      }
      // The document lists them all (21 today); a route that lost its schema would drop out silently.
      assert.ok(operations.length >= 21, `only ${operations.length} JSON operations in /openapi.json`);
    });
    after(() => t?.close());

    /** Sends the body; a refusal must be catalogued, name its field, and write nothing. */
    const send = async (operation: JsonOperation, body: string | Uint8Array, context: string): Promise<Response> => {
      const before = await t.snapshot();
      const response = await rawCall(t, operation.method, operation.path, { ...operation.headers, 'content-type': 'application/json' }, body);
      assert.ok(response.status < 500, `${context} → ${response.status} ${JSON.stringify(response.body)}`);
      if (response.status >= 400) {
        assertApiRefusal(response, context);
        const after = await t.snapshot();
        assertNothingWritten(before, after, context, allowedWrites(operation, response));
        // What the audit log gains from a refusal records it as one.
        for (const row of changes(before, after).audit_events?.added ?? []) assert.match(row, /outcome\W+(refused|failure)\W/, `${context}: ${row}`);
      }
      return response;
    };

    it('regression: [{"__proto__":0}] as a body is a forbidden key first (MALFORMED_JSON); the property once expected INVALID_FIELD', async () => {
      const operation = byRoute('/authn/totp/recovery-codes');
      const response = await send(operation, '[{"__proto__":0}]', 'a forbidden key in a wrongly typed body');
      assert.deepEqual(
        assertApiRefusal(response, 'forbidden key').map((e) => e.code),
        ['MALFORMED_JSON'],
      );
      assert.equal(holdsForbiddenKey(JSON.parse('[{"__proto__":0}]')), true, 'the model knows it');
    });

    it('refuses a body valid but for one field with 400 INVALID_FIELD naming that field, and writes nothing', async () => {
      const cases = fc.oneof(...operations.map((operation) => mutatedBody(operation.schema).map((mutated) => ({ operation, mutated }))));
      await fc.assert(
        fc.asyncProperty(cases, async ({ operation, mutated }) => {
          // Operations whose body is all optional read no body (and a JSON null) as `{}`.
          fc.pre(!(mutated.field === 'body' && mutated.body === null && !operation.schema.required?.length));
          const context = `${operation.method} ${operation.route} ${mutated.how} ${mutated.field}: ${JSON.stringify(mutated.body).slice(0, 300)}`;
          const response = await send(operation, JSON.stringify(mutated.body), context);
          const errors = assertApiRefusal(response, context);
          assert.equal(response.status, 400, context);
          // A forbidden key anywhere is refused before the schema is read (docs/errors.md, MALFORMED_JSON).
          if (holdsForbiddenKey(mutated.body))
            return void assert.deepEqual(
              errors.map((e) => e.code),
              ['MALFORMED_JSON'],
              context,
            );
          assert.ok(
            errors.every((e) => e.code === 'INVALID_FIELD'),
            `${context}: ${JSON.stringify(errors)}`,
          );
          const named = (message: string) => message.startsWith(mutated.field) && /^[:.[ ]/.test(message.slice(mutated.field.length));
          assert.ok(
            errors.some((e) => named(e.message)),
            `no message names ${mutated.field}: ${JSON.stringify(errors)} (${context})`,
          );
        }),
        { numRuns: runs(backend, 300) },
      );
    });

    it('answers bodies the schema accepts with a success or a catalogued refusal naming its field, never a 5xx', async () => {
      const cases = fc.oneof(...operations.map((operation) => validValue(operation.schema).map((body) => ({ operation, body }))));
      await fc.assert(
        fc.asyncProperty(cases, async ({ operation, body }) => {
          await send(operation, JSON.stringify(body), `${operation.method} ${operation.route} ${JSON.stringify(body).slice(0, 300)}`);
        }),
        { numRuns: runs(backend, 300) },
      );
    });

    it('answers arbitrary JSON with a catalogued 4xx (or a success) and never a 5xx', async () => {
      const cases = fc.tuple(fc.constantFrom(...operations), fc.jsonValue({ maxDepth: 4 }));
      await fc.assert(
        fc.asyncProperty(cases, async ([operation, value]) => {
          await send(operation, JSON.stringify(value), `${operation.method} ${operation.route} ${JSON.stringify(value).slice(0, 300)}`);
        }),
        { numRuns: runs(backend, 150) },
      );
    });

    it('answers arbitrary bytes sent as application/json with a catalogued 4xx and never a 5xx', async () => {
      const bytes = fc.oneof(
        fc.uint8Array({ maxLength: 300 }),
        fc.string({ unit: 'binary', maxLength: 200 }).map((s) => new TextEncoder().encode(s)),
      );
      await fc.assert(
        fc.asyncProperty(fc.constantFrom(...operations), bytes, async (operation, body) => {
          await send(operation, body, `${operation.method} ${operation.route} bytes ${Buffer.from(body).toString('base64')}`);
        }),
        { numRuns: runs(backend, 150) },
      );
    });

    /** U+0000 as every field without a character rule of its own now refuses it. */
    const NUL_REFUSED = 'must not contain control or format characters such as zero-width or bidirectional marks (found U+0000)';
    const byRoute = (route: string) => operations.find((o) => o.route === route) ?? assert.fail(`no operation ${route}`);

    it('regression: a verification id holding U+0000 answered 500 INTERNAL_ERROR on PostgreSQL', async () => {
      // The property's counterexample (seed 191692643): PostgreSQL text cannot hold U+0000.
      const body = { verification_id: '\u0000', code: '000000', connection_id: 'a', operator: { email: 'a@example.com', assertion: 'integration_asserted' } };
      const response = await send(byRoute('/integrations/email-verifications/verify'), JSON.stringify(body), 'verification_id NUL');
      assert.equal(response.status, 400);
      assert.deepEqual(response.body.errors, [{ httpcode: 400, code: 'INVALID_FIELD', message: `body.verification_id: ${NUL_REFUSED}` }]);
    });

    it('regression: U+0000 in a name, a path id or a cursor answered 500 INTERNAL_ERROR on PostgreSQL', async () => {
      const named = await send(byRoute('/organizations/api-keys'), JSON.stringify({ name: 'a\u0000b', kind: 'admin' }), 'api key name NUL');
      assert.deepEqual(named.body.errors, [{ httpcode: 400, code: 'INVALID_FIELD', message: `body.name: ${NUL_REFUSED}` }]);
      const cursor = Buffer.from(JSON.stringify(['persons', 'a', '\u0000'])).toString('base64url');
      const cases: [string, string, string][] = [
        ['/persons/%00', 'INVALID_FIELD', `path.person_id: ${NUL_REFUSED}`],
        ['/oauth2/clients/%00', 'INVALID_FIELD', `path.client_id: ${NUL_REFUSED}`],
        [`/persons?cursor=${cursor}`, 'INVALID_CURSOR', 'query.cursor: is not a cursor of this list (persons); use the cursors the previous page returned'],
      ];
      for (const [path, code, message] of cases) {
        const before = await t.snapshot();
        const response = await rawCall(t, 'GET', path, byRoute('/persons').headers);
        assertApiRefusal(response, path);
        assert.deepEqual(response.body.errors, [{ httpcode: 400, code, message }], path);
        assertNothingWritten(before, await t.snapshot(), path);
      }
    });
  });
}
