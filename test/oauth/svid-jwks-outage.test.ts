import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { backends } from '../helpers/backends.ts';
import { type JwksServer, startJwksServer } from '../helpers/jwks-server.ts';
import {
  type ClientCredentials,
  closedPortUrl,
  createPerson,
  EXCHANGE,
  JWT_TYPE,
  mintPersonToken,
  type OAuthResponse,
  registerClient,
  token,
} from '../helpers/oauth.ts';
import { startTestService, type TestOrg, type TestService } from '../helpers/service.ts';

/** The JWKS cache's default cooldown: a failed key set is not fetched again sooner. */
const COOLDOWN_S = 30;

for (const backend of backends()) {
  describe(`A JWT-SVID actor whose trust domain's JWKS cannot be had, on ${backend.name}`, () => {
    let t: TestService;
    let org: TestOrg;
    let gateway: ClientCredentials;
    let person: string;
    let personToken: string;
    let jwks: JwksServer;
    let garbage: JwksServer;
    let impostor: JwksServer;

    const svidFor = (server: JwksServer, spiffeId: string) => server.svid({ sub: spiffeId, aud: [`${t.service.issuer}/oauth2/tokens`] });
    const exchangeWith = async (svid: string) =>
      token(
        t,
        {
          grant_type: EXCHANGE,
          subject_token: personToken,
          subject_token_type: JWT_TYPE,
          actor_token: svid,
          actor_token_type: JWT_TYPE,
        },
        gateway,
      );
    const unavailable = (response: OAuthResponse) => {
      assert.equal(response.status, 503, JSON.stringify(response.body));
      assert.deepEqual(response.body, {
        error: 'temporarily_unavailable',
        error_description: "actor_token: the JWT-SVID's trust domain key set is unavailable; try again later",
      });
      assert.equal(response.headers.get('retry-after'), String(COOLDOWN_S));
      assert.equal(response.headers.get('cache-control'), 'no-store');
    };

    before(async () => {
      jwks = await startJwksServer();
      garbage = await startJwksServer('<html>maintenance</html>');
      // Same kid as `jwks`, another key: its SVIDs do not verify against `jwks`'s key set.
      impostor = await startJwksServer();
      t = await startTestService(backend, { TESSERA_DEV: '1' });
      org = await t.org();
      const patched = await t.call('PATCH', '/organizations/config', {
        as: org,
        body: {
          svid_jwks_urls: { 'example.org': jwks.url, 'down.example': await closedPortUrl(), 'garbage.example': garbage.url },
          allowed_spiffe_ids: ['spiffe://example.org/gw', 'spiffe://down.example/gw', 'spiffe://garbage.example/gw'],
        },
      });
      assert.equal(patched.status, 200, JSON.stringify(patched.body));
      gateway = await registerClient(t, org);
      person = await createPerson(t, org);
      personToken = await mintPersonToken(t, org, person);
    });
    after(async () => {
      await t.close();
      await Promise.all([jwks.close(), garbage.close(), impostor.close()]);
    });

    it('accepts an SVID of the reachable trust domain (the set-up works)', async () => {
      const response = await exchangeWith(await svidFor(jwks, 'spiffe://example.org/gw'));
      assert.equal(response.status, 200, JSON.stringify(response.body));
    });

    it('regression: an unreachable JWKS (closed port) was blamed on the caller as 400 invalid_request; now 503 with Retry-After', async () => {
      unavailable(await exchangeWith(await svidFor(jwks, 'spiffe://down.example/gw')));
    });

    it('answers 503 again when asked again within the cooldown', async () => {
      unavailable(await exchangeWith(await svidFor(jwks, 'spiffe://down.example/gw')));
    });

    it('answers 503 when the JWKS endpoint serves something that is not a key set', async () => {
      unavailable(await exchangeWith(await svidFor(jwks, 'spiffe://garbage.example/gw')));
    });

    it('audits the refusal: refused, temporarily_unavailable, the subject known, no actor', async () => {
      const events = (await t.call('GET', '/audit/events?type=token.exchange&limit=100', { as: org })).body.result as Array<{ data: Record<string, unknown> }>;
      const refusals = events.filter((e) => e.data.error === 'temporarily_unavailable');
      assert.equal(refusals.length, 3);
      for (const { data } of refusals) {
        assert.deepEqual(data, {
          result: 'refused',
          client_id: gateway.id,
          subject: person,
          actor: null,
          requested_token_type: 'urn:ietf:params:oauth:token-type:access_token',
          error: 'temporarily_unavailable',
        });
      }
    });

    it('still refuses an SVID the reachable JWKS does not validate: 400 invalid_request', async () => {
      const badSignature = await exchangeWith(await svidFor(impostor, 'spiffe://example.org/gw'));
      assert.deepEqual([badSignature.status, badSignature.body.error], [400, 'invalid_request']);
      assert.match(badSignature.body.error_description, /^actor_token: the JWT-SVID's signature does not verify/);
      assert.equal(badSignature.headers.get('retry-after'), null);
      const unknownKid = await exchangeWith(
        await jwks.svid({ sub: 'spiffe://example.org/gw', aud: [`${t.service.issuer}/oauth2/tokens`] }, { kid: 'rotated-away' }),
      );
      assert.deepEqual([unknownKid.status, unknownKid.body.error], [400, 'invalid_request']);
      assert.match(unknownKid.body.error_description, /^actor_token: the JWT-SVID's kid is not in its trust domain's key set/);
    });
  });
}
