import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { backends } from '../helpers/backends.ts';
import { clientKey, signAssertion } from '../helpers/client-jwks-server.ts';
import { type JwksServer, startJwksServer } from '../helpers/jwks-server.ts';
import { clientCredentialsOutcomes, introspect, type OAuthResponse, oauthPost, registerClient, token } from '../helpers/oauth.ts';
import { startTestService, type TestOrg, type TestService } from '../helpers/service.ts';

const JWT_SPIFFE = 'urn:ietf:params:oauth:client-assertion-type:jwt-spiffe';
const GATEWAY = 'spiffe://example.org/gateway';

/**
 * SPIFFE JWT-SVID client authentication (draft-ietf-oauth-spiffe-client-auth-02 §3.1, design §4):
 * a client registered with token_endpoint_auth_method spiffe_jwt and its spiffe_id presents a
 * JWT-SVID signed by its trust domain (a real bundle endpoint on port 0), reused as SVIDs are.
 */
for (const backend of backends()) {
  describe(`spiffe_jwt client authentication on ${backend.name} (issue 29)`, () => {
    let t: TestService;
    let org: TestOrg;
    let trustDomain: JwksServer;
    let impostor: JwksServer;
    let untrusted: JwksServer;
    let clientId: string;

    const trust = (as: TestOrg) =>
      t.call('PATCH', '/organizations/config', { as, body: { svid_jwks_urls: { 'example.org': trustDomain.url }, allowed_spiffe_ids: [] } });
    const registerSpiffeClient = async (as: TestOrg, spiffeId = GATEWAY) => {
      const response = await t.call('POST', '/oauth2/clients', {
        as,
        body: { client_name: 'workload', grant_types: ['client_credentials'], token_endpoint_auth_method: 'spiffe_jwt', spiffe_id: spiffeId },
      });
      assert.equal(response.status, 201, JSON.stringify(response.body));
      assert.equal(response.body.result.client_secret, undefined, 'a SPIFFE client is given no secret');
      assert.equal(response.body.result.spiffe_id, spiffeId);
      return response.body.result.client_id as string;
    };
    const svid = (claims: Record<string, unknown> = {}, server = trustDomain) => server.svid({ sub: GATEWAY, aud: [t.service.issuer], ...claims });
    const tokenWith = (assertion: string, extra: Record<string, string> = {}): Promise<OAuthResponse> =>
      oauthPost(t, '/oauth2/tokens', { grant_type: 'client_credentials', client_assertion_type: JWT_SPIFFE, client_assertion: assertion, ...extra });
    const refused = (response: OAuthResponse, description: string | RegExp) => {
      assert.equal(response.status, 401, JSON.stringify(response.body));
      assert.equal(response.body.error, 'invalid_client');
      if (typeof description === 'string') assert.equal(response.body.error_description, description);
      else assert.match(response.body.error_description, description);
    };

    /** The client an opaque token was issued to, as the organisation's admin key introspects it. */
    const introspectClientOf = async (accessToken: string, as = org) => (await introspect(t, accessToken, as)).body.client_id as string;

    before(async () => {
      [trustDomain, impostor, untrusted] = await Promise.all([startJwksServer(), startJwksServer(), startJwksServer()]);
      t = await startTestService(backend, { TESSERA_DEV: '1' });
      org = await t.org();
      assert.equal((await trust(org)).status, 200);
      clientId = await registerSpiffeClient(org);
    });
    after(async () => {
      await t.close();
      await Promise.all([trustDomain.close(), impostor.close(), untrusted.close()]);
    });

    it('issues a token for its SVID, with or without client_id, and again for the same SVID (no jti rule)', async () => {
      const assertion = await svid();
      for (const extra of [{}, { client_id: clientId }, {}] as Record<string, string>[]) {
        const response = await tokenWith(assertion, extra);
        assert.equal(response.status, 200, JSON.stringify(response.body));
        assert.equal(response.body.token_type, 'Bearer');
      }
      const both = await tokenWith(await svid({ aud: [t.service.issuer, `${t.service.issuer}/oauth2/tokens`] }));
      assert.equal(both.status, 200, 'an SVID for the issuer and the token endpoint serves as both client assertion and actor');
    });

    it('refuses an SVID of another SPIFFE ID, of an untrusted trust domain, or signed by a key not its trust domain`s', async () => {
      refused(await tokenWith(await svid({ sub: 'spiffe://example.org/other' })), 'client authentication failed');
      refused(await tokenWith(await svid({ sub: 'spiffe://example.org/other' }), { client_id: clientId }), 'client authentication failed');
      // A client of a trust domain its organisation does not trust.
      const foreign = await registerSpiffeClient(org, 'spiffe://other.org/gateway');
      // Before a trusted signature the answer tells nothing of the organisation's trust.
      refused(
        await tokenWith(await untrusted.svid({ sub: 'spiffe://other.org/gateway', aud: [t.service.issuer] }), { client_id: foreign }),
        'client authentication failed',
      );
      refused(await tokenWith(await svid({}, impostor)), 'client authentication failed');
    });

    it('refuses an SVID whose aud lacks the issuer or names another service too, and an expired one', async () => {
      refused(
        await tokenWith(await svid({ aud: [`${t.service.issuer}/oauth2/tokens`] })),
        'client_assertion: the JWT-SVID\'s "aud" does not name this service',
      );
      refused(
        await tokenWith(await svid({ aud: [t.service.issuer, 'https://elsewhere.example'] })),
        "client_assertion's aud must name only this service: its issuer identifier (and, for an actor, its token endpoint)",
      );
      const past = Math.floor(Date.now() / 1000) - 600;
      refused(await tokenWith(await svid({ iat: past, exp: past + 60 })), 'client_assertion: the JWT-SVID has expired');
    });

    it("audits a refused SVID in the client's organisation, as a refused secret is", async () => {
      const own = await registerSpiffeClient(org, 'spiffe://example.org/audited');
      refused(await tokenWith(await svid({ sub: 'spiffe://example.org/audited', aud: ['https://elsewhere.example'] })), /aud/);
      assert.deepEqual(await clientCredentialsOutcomes(t, org, own), [['refused', 'invalid_client']]);
    });

    it('refuses a secret on the SPIFFE client, and a private_key_jwt assertion type for it', async () => {
      refused(
        await token(t, { grant_type: 'client_credentials' }, { id: clientId, secret: 'tcs_guess' }),
        'the client is registered for spiffe_jwt; it has no secret',
      );
      refused(
        await oauthPost(t, '/oauth2/tokens', {
          grant_type: 'client_credentials',
          client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
          client_assertion: await svid({ iss: clientId, sub: clientId }),
        }),
        'the client is registered for spiffe_jwt, not private_key_jwt',
      );
    });

    it('regression: another organisation registering the same SPIFFE ID locked this one`s workloads out; each trust domain now finds its own client', async () => {
      const other = await t.org();
      const otherTrust = await t.call('PATCH', '/organizations/config', {
        as: other,
        body: { svid_jwks_urls: { 'example.org': impostor.url }, allowed_spiffe_ids: [] },
      });
      assert.equal(otherTrust.status, 200);
      const otherClient = await registerSpiffeClient(other);
      const mine = await tokenWith(await svid());
      assert.equal(mine.status, 200, JSON.stringify(mine.body));
      assert.equal(await introspectClientOf(mine.body.access_token), clientId);
      const theirs = await tokenWith(await svid({}, impostor));
      assert.equal(theirs.status, 200, JSON.stringify(theirs.body));
      assert.equal(await introspectClientOf(theirs.body.access_token, other), otherClient);
      assert.equal((await t.call('DELETE', `/oauth2/clients/${otherClient}`, { as: other })).status, 204);
    });

    it('asks for client_id when two organisations trusting one bundle registered the SVID`s SPIFFE ID', async () => {
      const other = await t.org();
      assert.equal((await trust(other)).status, 200);
      const otherClient = await registerSpiffeClient(other);
      refused(await tokenWith(await svid()), "more than one client is registered for client_assertion's SPIFFE ID: send client_id");
      for (const id of [clientId, otherClient]) assert.equal((await tokenWith(await svid(), { client_id: id })).status, 200);
      assert.equal((await t.call('DELETE', `/oauth2/clients/${otherClient}`, { as: other })).status, 204);
    });

    it('registers only a workload SPIFFE ID, and only with spiffe_jwt', async () => {
      const cases: [Record<string, unknown>, string][] = [
        [{ token_endpoint_auth_method: 'spiffe_jwt' }, 'body.spiffe_id: is required with token_endpoint_auth_method spiffe_jwt'],
        [{ token_endpoint_auth_method: 'spiffe_jwt', spiffe_id: 'spiffe://example.org' }, "body.spiffe_id: must be a workload's SPIFFE ID"],
        [{ token_endpoint_auth_method: 'spiffe_jwt', spiffe_id: 'spiffe://Example.org/x' }, "body.spiffe_id: must be a workload's SPIFFE ID"],
        [{ token_endpoint_auth_method: 'spiffe_jwt', spiffe_id: 'spiffe://example.org/a/../b' }, "body.spiffe_id: must be a workload's SPIFFE ID"],
        [
          { token_endpoint_auth_method: 'spiffe_jwt', spiffe_id: GATEWAY, jwks_uri: 'https://x.example/j' },
          'body.jwks_uri: is not used with token_endpoint_auth_method spiffe_jwt',
        ],
        [{ spiffe_id: GATEWAY }, 'body.spiffe_id: is not used with token_endpoint_auth_method client_secret_basic'],
      ];
      for (const [body, message] of cases) {
        const response = await t.call('POST', '/oauth2/clients', { as: org, body: { client_name: 'x', grant_types: ['client_credentials'], ...body } });
        assert.equal(response.status, 400, JSON.stringify(body));
        assert.ok(response.body.errors[0].message.startsWith(message), `${JSON.stringify(body)}: ${response.body.errors[0].message}`);
      }
    });

    it('PATCH switches a secret client to spiffe_jwt (its secret refused from then on), back (a new secret, shown once), and to private_key_jwt', async () => {
      const client = await registerClient(t, org, { grant_types: ['client_credentials'] });
      const patch = (body: Record<string, unknown>, id = client.id) => t.call('PATCH', `/oauth2/clients/${id}`, { as: org, body });
      const toSpiffe = await patch({ token_endpoint_auth_method: 'spiffe_jwt', spiffe_id: 'spiffe://example.org/switched' });
      assert.equal(toSpiffe.status, 200, JSON.stringify(toSpiffe.body));
      assert.equal(toSpiffe.body.result.token_endpoint_auth_method, 'spiffe_jwt');
      assert.equal(toSpiffe.body.result.client_secret, undefined);
      refused(await token(t, { grant_type: 'client_credentials' }, client), 'the client is registered for spiffe_jwt; it has no secret');
      assert.equal((await tokenWith(await svid({ sub: 'spiffe://example.org/switched' }))).status, 200);

      const back = await patch({ token_endpoint_auth_method: 'client_secret_post' });
      assert.equal(back.status, 200);
      const secret = back.body.result.client_secret as string;
      assert.match(secret, /^tcs_/);
      assert.notEqual(secret, client.secret);
      refused(await tokenWith(await svid({ sub: 'spiffe://example.org/switched' }), { client_id: client.id }), 'client authentication failed');
      assert.equal((await token(t, { grant_type: 'client_credentials' }, client)).status, 401, 'the secret of before stays dropped');
      assert.equal((await token(t, { grant_type: 'client_credentials' }, { id: client.id, secret })).status, 200);

      const events = await t.call('GET', '/audit/events?type=client.authentication_changed', { as: org });
      assert.deepEqual(
        events.body.result.map((event: { data: Record<string, unknown> }) => [
          event.data.from,
          event.data.token_endpoint_auth_method,
          event.data.spiffe_id ?? null,
        ]),
        [
          ['client_secret_basic', 'spiffe_jwt', 'spiffe://example.org/switched'],
          ['spiffe_jwt', 'client_secret_post', null],
        ],
        'each switch names what the client trusts from then on',
      );
      assert.ok(!JSON.stringify(events.body).includes(secret), 'the audit names no secret');

      const key = await clientKey('k1');
      const toKeys = await patch({ token_endpoint_auth_method: 'private_key_jwt', jwks: { keys: [key.jwk] } });
      assert.equal(toKeys.status, 200, JSON.stringify(toKeys.body));
      assert.deepEqual(toKeys.body.result.jwks.keys[0].kid, 'k1');
      assert.equal(toKeys.body.result.spiffe_id, undefined, 'what the method before used is gone');
      assert.equal((await token(t, { grant_type: 'client_credentials' }, { id: client.id, secret })).status, 401, 'the secret is dropped');
      const signed = await signAssertion(key, client.id, t.service.issuer, Date.now());
      const keyed = await oauthPost(t, '/oauth2/tokens', {
        grant_type: 'client_credentials',
        client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
        client_assertion: signed,
      });
      assert.equal(keyed.status, 200, JSON.stringify(keyed.body));

      assert.equal((await patch({ token_endpoint_auth_method: 'spiffe_jwt' })).status, 400, 'a keyed method needs what it uses');
      assert.equal((await patch({ token_endpoint_auth_method: 'spiffe_jwt', spiffe_id: GATEWAY }, 'cli_unknown')).status, 404);
      assert.equal(
        (await patch({ client_name: 'renamed', token_endpoint_auth_method: 'client_secret_basic' })).status,
        400,
        'only the method and what it uses',
      );
    });
  });
}
