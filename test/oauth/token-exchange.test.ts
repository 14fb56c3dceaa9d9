import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { backends } from '../helpers/backends.ts';
import {
  ACCESS_TOKEN_TYPE,
  type ClientCredentials,
  claims,
  clientToken,
  createPerson,
  EXCHANGE,
  JWT_TYPE,
  mintPersonToken,
  oauthPost,
  registerClient,
  token,
} from '../helpers/oauth.ts';
import { startTestService, type TestOrg, type TestService } from '../helpers/service.ts';

for (const backend of backends()) {
  describe(`RFC 8693 token exchange on ${backend.name}`, () => {
    let t: TestService;
    let org: TestOrg;
    let gateway: ClientCredentials;
    let person: string;
    let personToken: string;
    const introspect = async (value: string) => (await oauthPost(t, '/oauth2/tokens/introspect', { token: value }, gateway)).body;

    before(async () => {
      t = await startTestService(backend);
      org = await t.org();
      gateway = await registerClient(t, org);
      person = await createPerson(t, org);
      personToken = await mintPersonToken(t, org, person, { scope: 'orders:read orders:write profile' });
    });
    after(() => t.close());

    it('person JWT subject + opaque client actor → JWT verifiable against the JWKS, actor in act', async () => {
      const actor = await clientToken(t, gateway);
      const response = await token(
        t,
        {
          grant_type: EXCHANGE,
          subject_token: personToken,
          subject_token_type: JWT_TYPE,
          actor_token: actor,
          actor_token_type: ACCESS_TOKEN_TYPE,
          requested_token_type: JWT_TYPE,
        },
        gateway,
      );
      assert.equal(response.status, 200, JSON.stringify(response.body));
      assert.equal(response.body.issued_token_type, JWT_TYPE);
      assert.equal(response.body.token_type, 'Bearer');
      assert.equal(response.headers.get('cache-control'), 'no-store');
      const { payload, protectedHeader } = await jwtVerify(response.body.access_token, createRemoteJWKSet(new URL(`${t.url}/.well-known/jwks.json`)), {
        issuer: t.service.issuer,
        typ: 'at+jwt',
      });
      assert.equal(protectedHeader.alg, 'ES256');
      assert.equal(payload.sub, person);
      assert.deepEqual(payload.act, { sub: gateway.id });
      assert.equal(payload.scope, 'orders:read orders:write', 'narrowed to what the client may hold');
      assert.equal(payload.client_id, gateway.id);
    });

    it('person JWT subject + person JWT actor → act names the acting person', async () => {
      const assistant = await createPerson(t, org);
      const response = await token(
        t,
        {
          grant_type: EXCHANGE,
          subject_token: personToken,
          subject_token_type: JWT_TYPE,
          actor_token: await mintPersonToken(t, org, assistant),
          actor_token_type: JWT_TYPE,
          requested_token_type: JWT_TYPE,
        },
        gateway,
      );
      assert.equal(response.status, 200);
      assert.deepEqual(claims(response.body.access_token).act, { sub: assistant });
    });

    it('without an actor token the authenticated client is the actor', async () => {
      const response = await token(t, { grant_type: EXCHANGE, subject_token: personToken, subject_token_type: JWT_TYPE }, gateway);
      assert.equal(response.status, 200);
      assert.equal(response.body.issued_token_type, ACCESS_TOKEN_TYPE, 'opaque by default');
      assert.match(response.body.access_token, /^tat_/);
      const info = await introspect(response.body.access_token);
      assert.deepEqual([info.active, info.sub, info.client_id, info.act], [true, person, gateway.id, { sub: gateway.id }]);
    });

    it('clientless exchange of a person JWT with an actor token', async () => {
      const response = await token(t, {
        grant_type: EXCHANGE,
        subject_token: personToken,
        subject_token_type: JWT_TYPE,
        actor_token: await clientToken(t, gateway),
        actor_token_type: ACCESS_TOKEN_TYPE,
        requested_token_type: JWT_TYPE,
      });
      assert.equal(response.status, 200);
      const payload = claims(response.body.access_token);
      assert.deepEqual([payload.sub, payload.act, payload.client_id], [person, { sub: gateway.id }, undefined]);
    });

    it("refuses an actor of another organisation whose person exists there: the actor's organisation, not a look-up, refuses it", async () => {
      // A foreign client's token is also refused by the look-up of the acting client in the
      // subject's organisation; a foreign person's JWT names a person who exists, in their own
      // organisation, so only the check of the actor's organisation stands in its way.
      const foreign = await t.org();
      const outsider = await mintPersonToken(t, foreign, await createPerson(t, foreign));
      for (const client of [gateway, undefined]) {
        const response = await token(
          t,
          { grant_type: EXCHANGE, subject_token: personToken, subject_token_type: JWT_TYPE, actor_token: outsider, actor_token_type: JWT_TYPE },
          client,
        );
        assert.deepEqual(
          [response.status, response.body.error, response.body.error_description],
          [400, 'invalid_request', 'actor_token belongs to another organisation than the subject'],
          client ? 'with the client' : 'clientless',
        );
      }
    });

    it('refuses for the subject when both tokens are bad, though the actor is read while the subject is', async () => {
      const response = await token(
        t,
        {
          grant_type: EXCHANGE,
          subject_token: 'tat_not-a-token-of-this-server',
          subject_token_type: ACCESS_TOKEN_TYPE,
          actor_token: 'tat_not-one-either',
          actor_token_type: ACCESS_TOKEN_TYPE,
        },
        gateway,
      );
      assert.equal(response.status, 400);
      assert.equal(response.body.error, 'invalid_request');
      assert.match(response.body.error_description, /^subject_token /);
      const actorOnly = await token(
        t,
        {
          grant_type: EXCHANGE,
          subject_token: personToken,
          subject_token_type: JWT_TYPE,
          actor_token: 'tat_not-one-either',
          actor_token_type: ACCESS_TOKEN_TYPE,
        },
        gateway,
      );
      assert.equal(actorOnly.status, 400);
      assert.match(actorOnly.body.error_description, /^actor_token /);
    });

    it("nests the subject's own act chain, newest actor first", async () => {
      const first = (
        await token(t, { grant_type: EXCHANGE, subject_token: personToken, subject_token_type: JWT_TYPE, requested_token_type: JWT_TYPE }, gateway)
      ).body.access_token;
      const second = await registerClient(t, org, { client_name: 'billing' });
      const response = await token(
        t,
        {
          grant_type: EXCHANGE,
          subject_token: first,
          subject_token_type: JWT_TYPE,
          requested_token_type: JWT_TYPE,
          actor_token: await clientToken(t, second),
          actor_token_type: ACCESS_TOKEN_TYPE,
        },
        gateway,
      );
      assert.equal(response.status, 200);
      assert.deepEqual(claims(response.body.access_token).act, { sub: second.id, act: { sub: gateway.id } });
    });

    it('opaque subject bound to its client: exchanged when that client authenticates, chain kept in introspection', async () => {
      const opaque = (await token(t, { grant_type: EXCHANGE, subject_token: personToken, subject_token_type: JWT_TYPE, scope: 'orders:read' }, gateway)).body
        .access_token;
      const response = await token(
        t,
        {
          grant_type: EXCHANGE,
          subject_token: opaque,
          subject_token_type: ACCESS_TOKEN_TYPE,
          audience: ['orders', 'invoices'],
          resource: 'https://orders.example/api',
        },
        gateway,
      );
      assert.equal(response.status, 200, JSON.stringify(response.body));
      const info = await introspect(response.body.access_token);
      assert.deepEqual(info.act, { sub: gateway.id, act: { sub: gateway.id } });
      assert.deepEqual(info.aud, ['orders', 'invoices', 'https://orders.example/api']);
      assert.equal(info.scope, 'orders:read');
    });

    it('narrows scope on request and clamps the lifetime to the request, the ceiling and the subject', async () => {
      const narrowed = await token(
        t,
        { grant_type: EXCHANGE, subject_token: personToken, subject_token_type: JWT_TYPE, scope: 'orders:read', requested_expires_in: '90' },
        gateway,
      );
      assert.deepEqual([narrowed.body.scope, narrowed.body.expires_in], ['orders:read', 90]);
      const shortLived = await mintPersonToken(t, org, person, { expires_in: 120 });
      const clamped = await token(
        t,
        { grant_type: EXCHANGE, subject_token: shortLived, subject_token_type: JWT_TYPE, requested_expires_in: '100000' },
        gateway,
      );
      assert.equal(clamped.status, 200);
      assert.ok(clamped.body.expires_in <= 120 && clamped.body.expires_in >= 115, `expires_in ${clamped.body.expires_in}`);
    });

    it('honours may_act: only the named actor may exchange', async () => {
      const restricted = await mintPersonToken(t, org, person, { may_act: { sub: gateway.id } });
      assert.equal((await token(t, { grant_type: EXCHANGE, subject_token: restricted, subject_token_type: JWT_TYPE }, gateway)).status, 200);
      const other = await registerClient(t, org, { client_name: 'other' });
      const refused = await token(t, { grant_type: EXCHANGE, subject_token: restricted, subject_token_type: JWT_TYPE }, other);
      assert.deepEqual([refused.status, refused.body.error], [400, 'invalid_request']);
    });

    it('audits every exchange with who, on behalf of whom, which client, the token type asked for and the result', async () => {
      // Subjects of this test's own, so that each event found is the exchange made here.
      const asksJwt = await createPerson(t, org);
      const asksDefault = await createPerson(t, org);
      const exchange = async (subject: string, extra: Record<string, string>) => {
        const subjectToken = await mintPersonToken(t, org, subject);
        const response = await token(t, { grant_type: EXCHANGE, subject_token: subjectToken, subject_token_type: JWT_TYPE, ...extra }, gateway);
        assert.equal(response.status, 200, JSON.stringify(response.body));
      };
      await exchange(asksJwt, { requested_token_type: JWT_TYPE });
      await exchange(asksDefault, {});
      const events = (await t.call('GET', '/audit/events?type=token.exchange&limit=100', { as: org })).body.result;
      const grantedFor = (subject: string) =>
        events
          .filter((e: { data: { result: string; subject: string } }) => e.data.result === 'granted' && e.data.subject === subject)
          .map((e: { data: unknown }) => e.data);
      assert.deepEqual(grantedFor(asksJwt), [
        { result: 'granted', client_id: gateway.id, subject: asksJwt, actor: gateway.id, requested_token_type: JWT_TYPE },
      ]);
      assert.deepEqual(
        grantedFor(asksDefault),
        [{ result: 'granted', client_id: gateway.id, subject: asksDefault, actor: gateway.id, requested_token_type: ACCESS_TOKEN_TYPE }],
        'without requested_token_type the opaque access token type is what was asked for',
      );
      assert.ok(events.some((e: { data: { result: string; error: string } }) => e.data.result === 'refused' && e.data.error === 'invalid_request'));
    });
  });
}
