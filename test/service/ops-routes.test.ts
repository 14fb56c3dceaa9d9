import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { LATEST_SCHEMA_VERSION } from '../../src/store/migrations/index.ts';
import { backends } from '../helpers/backends.ts';
import { startTestService, type TestService } from '../helpers/service.ts';

for (const backend of backends()) {
  describe(`Ops endpoints on ${backend.name}`, () => {
    let t: TestService;
    before(async () => {
      t = await startTestService(backend);
    });
    after(() => t.close());

    it('answers liveness without database work', async () => {
      const response = await t.call('GET', '/healthz');
      assert.equal(response.status, 200);
      assert.deepEqual(response.body, { result: { status: 'ok' } });
    });

    it('reports readiness with the database, its schema version and the signing key', async () => {
      const response = await t.call('GET', '/readyz');
      assert.equal(response.status, 200);
      const jwks = (await t.call('GET', '/.well-known/jwks.json')).body as { keys: { kid: string }[] };
      assert.deepEqual(response.body, {
        result: { status: 'ready', database: backend.name, schema_version: LATEST_SCHEMA_VERSION, signing_key: jwks.keys[0]!.kid },
      });
    });

    it('exposes Prometheus metrics labelled by route template, not raw URL', async () => {
      const org = await t.org();
      await t.call('GET', '/persons/per_does_not_exist', { as: org });
      const metrics = (await t.call('GET', '/metrics')).body as string;
      assert.match(metrics, /tessera_http_requests_total\{method="GET",route="\/persons\/:person_id",status="404"\} 1/);
      assert.ok(!metrics.includes('per_does_not_exist'));
      assert.match(metrics, /tessera_process_resident_memory_bytes/);
    });
  });
}

describe('OpenAPI document', () => {
  let t: TestService;
  before(async () => {
    t = await startTestService(backends()[0]!);
  });
  after(() => t.close());

  it('is OpenAPI 3.1, generated from the route schemas, and describes every operation', async () => {
    const doc = (await t.call('GET', '/openapi.json')).body;
    assert.equal(doc.openapi, '3.1.0');
    const operations = Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(([path, methods]) =>
      Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`),
    );
    assert.deepEqual(operations.sort(), [
      'DELETE /oauth2/clients/{client_id}',
      'DELETE /organizations/api-keys/{key_id}',
      'DELETE /organizations/connections/{connection_id}',
      'DELETE /persons/{person_id}',
      'DELETE /persons/{person_id}/authn-attempts',
      'DELETE /persons/{person_id}/credentials/{credential_id}',
      'GET /.well-known/jwks.json',
      'GET /.well-known/oauth-authorization-server',
      'GET /audit/events',
      'GET /healthz',
      'GET /metrics',
      'GET /oauth2/clients',
      'GET /oauth2/clients/{client_id}',
      'GET /organizations/api-keys',
      'GET /organizations/config',
      'GET /organizations/connections',
      'GET /organizations/connections/{connection_id}',
      'GET /persons',
      'GET /persons/{person_id}',
      'GET /persons/{person_id}/authn-attempts',
      'GET /persons/{person_id}/credentials',
      'GET /readyz',
      'PATCH /oauth2/clients/{client_id}',
      'PATCH /organizations/config',
      'PATCH /persons/{person_id}',
      'POST /authn/password',
      'POST /authn/totp',
      'POST /authn/totp/enrolment',
      'POST /authn/totp/enrolment/confirm',
      'POST /authn/totp/recovery-codes',
      'POST /authn/webauthn/options',
      'POST /authn/webauthn/registration/options',
      'POST /authn/webauthn/registration/verify',
      'POST /authn/webauthn/verify',
      'POST /helpdesk/email-verifications',
      'POST /helpdesk/email-verifications/verify',
      'POST /integrations/email-verifications',
      'POST /integrations/email-verifications/verify',
      'POST /oauth2/clients',
      'POST /oauth2/clients/{client_id}/secret',
      'POST /oauth2/tokens',
      'POST /oauth2/tokens/introspect',
      'POST /oauth2/tokens/revoke',
      'POST /organizations/api-keys',
      'POST /organizations/connections',
      'POST /organizations/connections/{connection_id}/scim-token',
      'POST /persons',
      'POST /persons/{person_id}/credentials',
      'POST /persons/{person_id}/invitations',
      'POST /persons/{person_id}/mint-token',
    ]);
    const create = doc.paths['/persons'].post;
    assert.deepEqual(create.security, [{ orgId: [], apiKey: [] }]);
    assert.ok(create.requestBody.content['application/json'].schema.properties.handles);
    assert.ok(create.responses['201'] && create.responses['400'] && create.responses['409']);
  });
});
