import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { opaqueTokenKey } from '../../../src/oauth/tokens/opaque-token.ts';
import { backends } from '../../helpers/backends.ts';
import { startFrozenService, type TestClock } from '../../helpers/frozen-service.ts';
import {
  ACCESS_TOKEN_TYPE,
  type ClientCredentials,
  claims,
  clientToken,
  createPerson,
  EXCHANGE,
  introspect,
  JWT_TYPE,
  mintPersonToken,
  type OAuthResponse,
  registerClient,
  token,
} from '../../helpers/oauth.ts';
import type { TestOrg, TestService } from '../../helpers/service.ts';

const NOW_MS = Date.UTC(2030, 0, 1, 12, 0, 0);
const ORDERS_API = 'https://orders.example/api';
const BILLING_API = 'https://billing.example/api';

/** What a delegated token inherits from an opaque subject, and how much lifetime it has left (src/oauth/grants/token-exchange.ts). */
for (const backend of backends()) {
  describe(`Token exchange: restrictions passed on and lifetime left, against a frozen clock, on ${backend.name}`, () => {
    const clock: TestClock = { at: NOW_MS };
    let t: TestService;
    let org: TestOrg;
    let gateway: ClientCredentials;
    let person: string;

    before(async () => {
      t = await startFrozenService(backend, clock);
      org = await t.org();
      gateway = await registerClient(t, org);
      person = await createPerson(t, org);
    });
    after(() => t.close());

    const personJwt = () => mintPersonToken(t, org, person, { scope: 'orders:read' });
    const exchange = (params: Record<string, string | string[]>): Promise<OAuthResponse> => token(t, { grant_type: EXCHANGE, ...params }, gateway);
    /** An opaque token exchanged from a fresh person JWT with these restrictions. */
    const restricted = async (params: Record<string, string | string[]>) => {
      const response = await exchange({ subject_token: await personJwt(), subject_token_type: JWT_TYPE, ...params });
      assert.equal(response.status, 200, JSON.stringify(response.body));
      return response.body.access_token as string;
    };
    /** Exchanges `parent` (opaque) with these parameters: the child's introspected aud and stored audience and resource. */
    const child = async (parent: string, params: Record<string, string | string[]>) => {
      const response = await exchange({ subject_token: parent, subject_token_type: ACCESS_TOKEN_TYPE, ...params });
      assert.equal(response.status, 200, JSON.stringify(response.body));
      const value: string = response.body.access_token;
      const record = await t.service.store.findToken(opaqueTokenKey(value));
      return { aud: (await introspect(t, value, gateway)).body.aud, audience: record?.audience, resource: record?.resource };
    };
    const refusal = (response: OAuthResponse) => [response.status, response.body.error, response.body.error_description, response.body.access_token];

    it("keeps a parent's audience when the child names none, and takes a resource where the parent restricted none", async () => {
      clock.at = NOW_MS;
      const parent = await restricted({ audience: 'orders' });
      assert.deepEqual(await child(parent, {}), { aud: ['orders'], audience: ['orders'], resource: [] });
      assert.deepEqual(await child(parent, { resource: ORDERS_API }), { aud: ['orders', ORDERS_API], audience: ['orders'], resource: [ORDERS_API] });
      assert.deepEqual(await child(parent, { audience: 'orders', resource: ORDERS_API }), {
        aud: ['orders', ORDERS_API],
        audience: ['orders'],
        resource: [ORDERS_API],
      });
    });

    it("keeps a parent's resources when the child names none, and takes an audience where the parent restricted none", async () => {
      clock.at = NOW_MS;
      const parent = await restricted({ resource: [ORDERS_API, BILLING_API] });
      assert.deepEqual(await child(parent, {}), { aud: [ORDERS_API, BILLING_API], audience: [], resource: [ORDERS_API, BILLING_API] });
      assert.deepEqual(await child(parent, { audience: 'orders', resource: BILLING_API }), {
        aud: ['orders', BILLING_API],
        audience: ['orders'],
        resource: [BILLING_API],
      });
    });

    it("refuses a resource or an audience beyond the parent's, naming what is not allowed", async () => {
      clock.at = NOW_MS;
      const parent = await restricted({ audience: 'orders', resource: ORDERS_API });
      const narrowOnly = (name: string, extra: string) => [400, 'invalid_target', `${name} may only narrow the subject's; not allowed: ${extra}`, undefined];
      const asSubject = { subject_token: parent, subject_token_type: ACCESS_TOKEN_TYPE };
      assert.deepEqual(refusal(await exchange({ ...asSubject, resource: [ORDERS_API, BILLING_API] })), narrowOnly('resource', BILLING_API));
      assert.deepEqual(refusal(await exchange({ ...asSubject, audience: ['billing', 'orders', 'payments'] })), narrowOnly('audience', 'billing payments'));
    });

    it('delegates only the scopes the subject, the authenticated client and an acting client all hold', async () => {
      clock.at = NOW_MS;
      const both = 'orders:read orders:write';
      const subject = await mintPersonToken(t, org, person, { scope: both });
      const asSubject = { subject_token: subject, subject_token_type: JWT_TYPE };
      const readOnly = await registerClient(t, org, { client_name: 'read-only', scopes: ['orders:read'] });
      const scopeOf = async (response: OAuthResponse) => {
        assert.equal(response.status, 200, JSON.stringify(response.body));
        return response.body.scope;
      };
      assert.equal(await scopeOf(await exchange(asSubject)), both);
      assert.equal(await scopeOf(await token(t, { grant_type: EXCHANGE, ...asSubject }, readOnly)), 'orders:read', 'the client narrows');
      const actor = { actor_token: await clientToken(t, readOnly), actor_token_type: ACCESS_TOKEN_TYPE };
      assert.equal(await scopeOf(await exchange({ ...asSubject, ...actor })), 'orders:read', 'the acting client narrows');
      // Asked for: each scope once, in the order asked; what is beyond them is named, every one.
      assert.equal(await scopeOf(await exchange({ ...asSubject, scope: 'orders:write orders:read orders:write' })), 'orders:write orders:read');
      assert.deepEqual(refusal(await exchange({ ...asSubject, ...actor, scope: 'orders:read admin:all orders:write' })), [
        400,
        'invalid_scope',
        'not within what the subject, the client and the actor hold: admin:all orders:write',
        undefined,
      ]);
    });

    it("ends a token delegated for a person with the person's generation, as their own tokens do", async () => {
      clock.at = NOW_MS;
      const someone = await createPerson(t, org);
      const raised = await t.call('PATCH', `/persons/${someone}`, { as: org, body: { roles: ['verifier'] } });
      assert.equal(raised.status, 200, JSON.stringify(raised.body));
      const subject = await mintPersonToken(t, org, someone);
      const generation = claims(subject).gen;
      assert.ok(generation >= 1, 'the change of roles raised the generation');
      const asJwt = await exchange({ subject_token: subject, subject_token_type: JWT_TYPE, requested_token_type: JWT_TYPE });
      assert.equal(claims(asJwt.body.access_token).gen, generation);
      const asOpaque = await exchange({ subject_token: subject, subject_token_type: JWT_TYPE });
      assert.equal((await t.service.store.findToken(opaqueTokenKey(asOpaque.body.access_token)))?.personGeneration, generation);
      // So the delegated tokens work until the next raise, and no longer after it.
      assert.equal((await exchange({ subject_token: asJwt.body.access_token, subject_token_type: JWT_TYPE })).status, 200);
      assert.equal((await t.call('PATCH', `/persons/${someone}`, { as: org, body: { roles: [] } })).status, 200);
      assert.deepEqual(refusal(await exchange({ subject_token: asJwt.body.access_token, subject_token_type: JWT_TYPE })), [
        400,
        'invalid_request',
        'subject_token was issued before the person signed out everywhere, had their roles changed or a credential removed; it no longer works',
        undefined,
      ]);
    });

    it('refuses a JWT subject with no whole second left, though within the clock tolerance the reader allows', async () => {
      clock.at = NOW_MS;
      const subject = await personJwt();
      const expiresAt = claims(subject).exp * 1000;
      const asSubject = { subject_token: subject, subject_token_type: JWT_TYPE };
      clock.at = expiresAt - 1000;
      const last = await exchange(asSubject);
      assert.deepEqual([last.status, last.body.expires_in], [200, 1], JSON.stringify(last.body));
      // From here on the reader still accepts the JWT (5 seconds of tolerance): the lifetime left refuses it.
      for (const at of [expiresAt - 999, expiresAt, expiresAt + 4000]) {
        clock.at = at;
        assert.deepEqual(refusal(await exchange(asSubject)), [400, 'invalid_request', 'subject_token has expired', undefined], `at exp + ${at - expiresAt} ms`);
      }
    });
  });
}
