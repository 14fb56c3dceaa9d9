import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { backends } from '../helpers/backends.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { mismatch, substitute, substituteDeep } from './fixture-match.ts';
import { type ScimTenant, scimTenant } from './scim-helpers.ts';

interface Step {
  name: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body: unknown;
  expect: { status: number; body_subset: unknown; body_absent?: string[] };
}

const load = (file: string): Step[] => JSON.parse(readFileSync(new URL(`fixtures/${file}`, import.meta.url), 'utf8'));
const providers = [
  // Entra's paths are relative to the Tenant URL; Okta's carry /scim/v2 (README § Paths and headers).
  {
    name: 'Microsoft Entra ID',
    steps: load('entra.json'),
    path: (p: string) => p,
    firstCreate: 'Create User',
    binds: { 'Example 2: Provision a user (null attributes, malformed extension URN)': 'jyoung' },
  },
  {
    name: 'Okta',
    steps: load('okta.json'),
    path: (p: string) => p.replace(/^\/scim\/v2/, ''),
    firstCreate: 'Create the User',
    binds: {} as Record<string, string>,
  },
];

for (const backend of backends()) {
  describe(`SCIM fixtures replayed over HTTP on ${backend.name}`, () => {
    let t: TestService;
    before(async () => {
      t = await startTestService(backend);
    });
    after(() => t.close());

    for (const provider of providers) {
      // README: bodies without a documented Content-Type run as application/scim+json and as application/json.
      for (const contentType of ['application/scim+json', 'application/json']) {
        describe(`${provider.name}, bodies as ${contentType}`, () => {
          let tenant: ScimTenant;
          const ids: Record<string, string> = {};
          before(async () => {
            tenant = await scimTenant(t);
          });
          for (const step of provider.steps) {
            it(step.name, async () => {
              const headers: Record<string, string> = step.body === null ? {} : { 'content-type': step.headers['content-type'] ?? contentType };
              const body = step.body === null ? undefined : substituteDeep(step.body, ids);
              const response = await tenant.call(step.method, substitute(provider.path(step.path), ids), body, headers);
              assert.equal(response.status, step.expect.status, JSON.stringify(response.body));
              if (response.status === 201 && step.name === provider.firstCreate) ids[''] = response.body.id;
              const bound = (provider.binds as Record<string, string>)[step.name];
              if (response.status === 201 && bound) ids[bound] = response.body.id;
              if (step.expect.body_subset !== null) {
                assert.match(response.headers.get('content-type') ?? '', /^application\/scim\+json/);
                const problem = mismatch(step.expect.body_subset, response.body, ids);
                assert.equal(problem, undefined, `${problem}\n${JSON.stringify(response.body, null, 1)}`);
              }
              for (const member of step.expect.body_absent ?? []) assert.ok(!(member in response.body), `${member} must not be returned`);
              assert.ok(!JSON.stringify(response.body ?? '').includes('1mz050nq'), 'the password is never echoed');
            });
          }
        });
      }
    }
  });
}
