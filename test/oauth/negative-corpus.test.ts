import assert from 'node:assert/strict';
import type { KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { generateKeyPair, SignJWT } from 'jose';
import { hashSecret } from '../../src/crypto/ids.ts';
import { backends } from '../helpers/backends.ts';
import { type JwksServer, startJwksServer } from '../helpers/jwks-server.ts';
import {
  ACCESS_TOKEN_TYPE,
  type ClientCredentials,
  clientToken,
  closedPortUrl,
  createPerson,
  EXCHANGE,
  forgeServiceJwt,
  JWT_TYPE,
  mintPersonToken,
  type OAuthResponse,
  oauthPost,
  registerClient,
  serviceSigningKey,
  token,
} from '../helpers/oauth.ts';
import { startTestService, type TestOrg, type TestService } from '../helpers/service.ts';

const b64 = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');

for (const backend of backends()) {
  describe(`Token endpoint negative corpus on ${backend.name}`, () => {
    let t: TestService;
    let org: TestOrg;
    let gateway: ClientCredentials;
    let personToken: string;
    let jwks: JwksServer;
    let garbage: JwksServer;
    const s: Record<string, string> = {};
    const clients: Record<string, ClientCredentials> = {};
    let ownKey: { kid: string; privateKey: KeyObject };

    /** A person JWT signed with the service's own key, valid but for the claims and header given. */
    const forge = (claims: Record<string, unknown>, header: Record<string, unknown> = {}) =>
      forgeServiceJwt(t, ownKey, { orgId: org.orgId, subject: s.person! }, claims, header);
    const svidClaims = () => ({ sub: 'spiffe://example.org/gateway', aud: [`${t.service.issuer}/oauth2/tokens`] });
    const exchange = (extra: Record<string, string | string[]>) => ({
      grant_type: EXCHANGE,
      subject_token: personToken,
      subject_token_type: JWT_TYPE,
      ...extra,
    });
    const withSvid = async (svid: string) => exchange({ actor_token: svid, actor_token_type: JWT_TYPE });

    before(async () => {
      jwks = await startJwksServer();
      garbage = await startJwksServer('<html>not a key set</html>');
      t = await startTestService(backend, { TESSERA_DEV: '1' });
      org = await t.org();
      const patched = await t.call('PATCH', '/organizations/config', {
        as: org,
        body: {
          svid_jwks_urls: { 'example.org': jwks.url, 'garbage.example': garbage.url, 'down.example': await closedPortUrl() },
          allowed_spiffe_ids: ['spiffe://example.org/gateway', 'spiffe://garbage.example/gw', 'spiffe://down.example/gw'],
        },
      });
      assert.equal(patched.status, 200, JSON.stringify(patched.body));
      gateway = await registerClient(t, org);
      clients.ccOnly = await registerClient(t, org, { grant_types: ['client_credentials'] });
      clients.other = await registerClient(t, org, { client_name: 'other' });
      clients.jwt = await registerClient(t, org, { access_token_format: 'jwt' });
      s.person = await createPerson(t, org);
      personToken = await mintPersonToken(t, org, s.person, { scope: 'orders:read' });
      s.actor = await clientToken(t, gateway);
      s.opaqueSubject = (await token(t, exchange({}), gateway)).body.access_token;
      const foreign = await t.org();
      s.foreignPersonToken = await mintPersonToken(t, foreign, await createPerson(t, foreign));
      s.foreignActor = await clientToken(t, await registerClient(t, foreign));
      ownKey = await serviceSigningKey(t);
    });
    after(async () => {
      await t.close();
      await jwks.close();
      await garbage.close();
    });

    it('accepts a valid JWT-SVID actor (so every refusal below is about the one thing it breaks)', async () => {
      const response = await token(t, { ...(await withSvid(await jwks.svid(svidClaims()))), requested_token_type: JWT_TYPE }, gateway);
      assert.equal(response.status, 200, JSON.stringify(response.body));
      const act = JSON.parse(Buffer.from(response.body.access_token.split('.')[1], 'base64url').toString()).act;
      assert.deepEqual(act, { sub: 'spiffe://example.org/gateway' });
    });

    /**
     * `description` is the error_description the refusal must carry, word for word: the status and
     * `error` are shared by most rows, so only the description shows that a row was refused by the
     * check it is about and not by an earlier or a later one.
     */
    type Case = [name: string, request: () => Promise<OAuthResponse>, status: number, error: string, description: string];
    /** `null` sends no client credentials at all. */
    const post = (params: Record<string, string | string[]>, client: ClientCredentials | null = gateway) => token(t, params, client ?? undefined);
    const cases: Case[] = [
      [
        'subject alg none',
        async () =>
          post(
            exchange({
              subject_token: `${b64({ alg: 'none', typ: 'at+jwt' })}.${b64({ iss: t.service.issuer, sub: s.person, oid: org.orgId, exp: 9e9, iat: 1 })}.`,
            }),
          ),
        400,
        'invalid_request',
        'subject_token is not a well-formed JWT',
      ],
      [
        'subject HS256 signed with the JWKS public key',
        async () => {
          const publicJwk = (await t.call('GET', '/.well-known/jwks.json')).body.keys[0];
          const hs = await new SignJWT({ iss: t.service.issuer, sub: s.person, oid: org.orgId })
            .setProtectedHeader({ alg: 'HS256', kid: publicJwk.kid, typ: 'at+jwt' })
            .setIssuedAt()
            .setExpirationTime('10m')
            .sign(new TextEncoder().encode(JSON.stringify(publicJwk)));
          return post(exchange({ subject_token: hs }));
        },
        400,
        'invalid_request',
        'subject_token uses a signing algorithm this server does not accept',
      ],
      [
        'subject with a tampered payload',
        async () => {
          const [header, , signature] = personToken.split('.');
          return post(
            exchange({ subject_token: `${header}.${b64({ iss: t.service.issuer, sub: 'per_someone_else', oid: org.orgId, iat: 1, exp: 9e9 })}.${signature}` }),
          );
        },
        400,
        'invalid_request',
        'subject_token has an invalid signature',
      ],
      [
        'subject signed with an unknown kid',
        async () => {
          const { privateKey } = await generateKeyPair('ES256');
          return post(
            exchange({
              subject_token: await new SignJWT({ iss: t.service.issuer, sub: s.person, oid: org.orgId })
                .setProtectedHeader({ alg: 'ES256', kid: 'not-ours', typ: 'at+jwt' })
                .setIssuedAt()
                .setExpirationTime('10m')
                .sign(privateKey),
            }),
          );
        },
        400,
        'invalid_request',
        'subject_token is signed with a key this server does not know',
      ],
      [
        'expired subject',
        async () => post(exchange({ subject_token: await forge({ iat: 1_000, exp: 2_000 }) })),
        400,
        'invalid_request',
        'subject_token has expired',
      ],
      [
        'subject with nbf in the future',
        async () => post(exchange({ subject_token: await forge({ nbf: Math.floor(Date.now() / 1000) + 3600 }) })),
        400,
        'invalid_request',
        'subject_token is not valid yet ("nbf" is in the future)',
      ],
      [
        'subject with a wrong iss',
        async () => post(exchange({ subject_token: await forge({ iss: 'https://evil.example' }) })),
        400,
        'invalid_request',
        'subject_token failed the "iss" check (it must be this server\'s issuer URL)',
      ],
      [
        'subject with a wrong typ',
        async () => post(exchange({ subject_token: await forge({}, { typ: 'JWT' }) })),
        400,
        'invalid_request',
        'subject_token failed the "typ" check (it must be "at+jwt")',
      ],
      [
        'subject without aud',
        async () => post(exchange({ subject_token: await forge({ aud: undefined }) })),
        400,
        'invalid_request',
        'subject_token is not meant for this service ("aud" must be its issuer URL)',
      ],
      [
        'subject with an aud of another service',
        async () => post(exchange({ subject_token: await forge({ aud: 'https://elsewhere.example' }) })),
        400,
        'invalid_request',
        'subject_token is not meant for this service ("aud" must be its issuer URL)',
      ],
      [
        'subject issued more than 60 seconds in the future',
        async () => post(exchange({ subject_token: await forge({ iat: Math.floor(Date.now() / 1000) + 3600, exp: Math.floor(Date.now() / 1000) + 4200 }) })),
        400,
        'invalid_request',
        'subject_token was issued in the future ("iat" is more than 60 seconds ahead)',
      ],
      [
        'subject whose act is not an object with a string sub',
        async () => post(exchange({ subject_token: await forge({ act: { sub: ['cli_a'] } }) })),
        400,
        'invalid_request',
        'subject_token has a malformed claim: "act" must name its actor with a non-empty string "sub" at every level',
      ],
      [
        'subject whose act nests more than 10 actors',
        async () => {
          let act: Record<string, unknown> = { sub: 'cli_first' };
          for (let level = 2; level <= 11; level++) act = { sub: `cli_${level}`, act };
          return post(exchange({ subject_token: await forge({ act }) }));
        },
        400,
        'invalid_request',
        'subject_token has a malformed claim: "act" nests more than 10 actors',
      ],
      [
        'subject whose may_act is not an object with a string sub',
        async () => post(exchange({ subject_token: await forge({ may_act: 'cli_anyone' }) })),
        400,
        'invalid_request',
        'subject_token has a malformed claim: "may_act" must be an object holding only a non-empty string "sub"',
      ],
      [
        'subject of another organisation',
        async () => post(exchange({ subject_token: s.foreignPersonToken! })),
        400,
        'invalid_request',
        'subject_token belongs to another organisation than the client',
      ],
      [
        'revoked opaque subject',
        async () => {
          const value = (await token(t, exchange({}), gateway)).body.access_token;
          await oauthPost(t, '/oauth2/tokens/revoke', { token: value }, gateway);
          return post({ grant_type: EXCHANGE, subject_token: value, subject_token_type: ACCESS_TOKEN_TYPE });
        },
        400,
        'invalid_request',
        'subject_token has been revoked',
      ],
      [
        'expired opaque subject',
        async () => {
          const value = 'tat_expired-token-for-the-negative-corpus-0000000000';
          await t.service.store.insertToken({
            hash: hashSecret(value),
            orgId: org.orgId,
            clientId: gateway.id,
            subject: s.person!,
            scope: '',
            audience: [],
            resource: [],
            act: null,
            mayAct: null,
            parentHash: null,
            issuedAt: 1,
            expiresAt: 2,
            revokedAt: null,
            personGeneration: null,
          });
          // The exchange's last step also refuses a subject without a second left, in the same
          // words; the scope asked for (the subject holds none) would be refused before it. So
          // only the read of the subject, judging its expiry, gives this answer.
          return post({ grant_type: EXCHANGE, subject_token: value, subject_token_type: ACCESS_TOKEN_TYPE, scope: 'orders:read' });
        },
        400,
        'invalid_request',
        'subject_token has expired',
      ],
      [
        'opaque subject presented by another client',
        async () => post({ grant_type: EXCHANGE, subject_token: s.opaqueSubject!, subject_token_type: ACCESS_TOKEN_TYPE }, clients.other),
        400,
        'invalid_request',
        'subject_token was issued to another client',
      ],
      [
        'opaque subject presented without its client',
        async () =>
          post(
            {
              grant_type: EXCHANGE,
              subject_token: s.opaqueSubject!,
              subject_token_type: ACCESS_TOKEN_TYPE,
              actor_token: s.actor!,
              actor_token_type: ACCESS_TOKEN_TYPE,
            },
            null,
          ),
        401,
        'invalid_client',
        'subject_token is bound to a client: authenticate as that client',
      ],
      [
        'SVID from an unlisted trust domain',
        async () => post(await withSvid(await jwks.svid({ ...svidClaims(), sub: 'spiffe://unlisted.example/gw' }))),
        400,
        'invalid_request',
        "actor_token: the JWT-SVID's trust domain unlisted.example is not trusted",
      ],
      [
        'SVID with a SPIFFE ID not allowed',
        async () => post(await withSvid(await jwks.svid({ ...svidClaims(), sub: 'spiffe://example.org/intruder' }))),
        400,
        'invalid_request',
        'actor_token: spiffe://example.org/intruder is not allowed to act',
      ],
      [
        'SVID with a wrong aud',
        async () => post(await withSvid(await jwks.svid({ ...svidClaims(), aud: ['https://elsewhere.example'] }))),
        400,
        'invalid_request',
        'actor_token: the JWT-SVID\'s "aud" does not name this service',
      ],
      [
        'SVID without aud',
        async () => post(await withSvid(await jwks.svid({ ...svidClaims(), aud: undefined }))),
        400,
        'invalid_request',
        'actor_token: the JWT-SVID\'s "aud" does not name this service',
      ],
      [
        'SVID without exp',
        async () => post(await withSvid(await jwks.svid({ ...svidClaims(), exp: undefined }))),
        400,
        'invalid_request',
        'actor_token: the JWT-SVID has no "exp"',
      ],
      [
        'SVID with a non-SPIFFE sub',
        async () => post(await withSvid(await jwks.svid({ ...svidClaims(), sub: 'gateway' }))),
        400,
        'invalid_request',
        'actor_token: the JWT-SVID\'s "sub" must be the SPIFFE ID of a workload (spiffe://trust-domain/path)',
      ],
      [
        'SVID signed HS256',
        async () => {
          const hs = await new SignJWT(svidClaims())
            .setProtectedHeader({ alg: 'HS256', kid: 'svid-key-1' })
            .setIssuedAt()
            .setExpirationTime('5m')
            .sign(new TextEncoder().encode(JSON.stringify(jwks.publicJwk)));
          return post(await withSvid(hs));
        },
        400,
        'invalid_request',
        "actor_token: the JWT-SVID's alg must be one of RS256, RS384, RS512, ES256, ES384, ES512, PS256, PS384, PS512",
      ],
      [
        'SVID whose JWKS endpoint is down',
        async () => post(await withSvid(await jwks.svid({ ...svidClaims(), sub: 'spiffe://down.example/gw' }))),
        503,
        'temporarily_unavailable',
        "actor_token: the JWT-SVID's trust domain key set is unavailable; try again later",
      ],
      [
        'SVID whose JWKS endpoint returns garbage',
        async () => post(await withSvid(await jwks.svid({ ...svidClaims(), sub: 'spiffe://garbage.example/gw' }))),
        503,
        'temporarily_unavailable',
        "actor_token: the JWT-SVID's trust domain key set is unavailable; try again later",
      ],
      [
        'may_act naming another actor',
        async () => post(exchange({ subject_token: await mintPersonToken(t, org, s.person!, { may_act: { sub: 'cli_somebody_else' } }) })),
        400,
        'invalid_request',
        "subject_token's may_act does not name this actor",
      ],
      [
        'scope widening',
        async () => post(exchange({ scope: 'orders:read orders:write' })),
        400,
        'invalid_scope',
        'not within what the subject, the client and the actor hold: orders:write',
      ],
      [
        'relative resource',
        async () => post(exchange({ resource: '/orders' })),
        400,
        'invalid_target',
        'resource "/orders" must be an absolute URI without a fragment',
      ],
      [
        'resource with a fragment',
        async () => post(exchange({ resource: 'https://orders.example/api#v2' })),
        400,
        'invalid_target',
        'resource "https://orders.example/api#v2" must be an absolute URI without a fragment',
      ],
      [
        'audience with jwt output',
        async () => post(exchange({ audience: 'orders', requested_token_type: JWT_TYPE })),
        400,
        'invalid_request',
        'audience: only for access_token output, not for requested_token_type jwt',
      ],
      [
        'scope with jwt output',
        async () => post(exchange({ scope: 'orders:read', requested_token_type: JWT_TYPE })),
        400,
        'invalid_request',
        'scope: only for access_token output, not for requested_token_type jwt',
      ],
      [
        'requested_expires_in zero',
        async () => post(exchange({ requested_expires_in: '0' })),
        400,
        'invalid_request',
        'requested_expires_in must be a positive whole number of seconds',
      ],
      [
        'requested_expires_in negative',
        async () => post(exchange({ requested_expires_in: '-60' })),
        400,
        'invalid_request',
        'requested_expires_in must be a positive whole number of seconds',
      ],
      [
        'requested_expires_in not an integer',
        async () => post(exchange({ requested_expires_in: '90.5' })),
        400,
        'invalid_request',
        'requested_expires_in must be a positive whole number of seconds',
      ],
      [
        'requested_expires_in huge',
        async () => post(exchange({ requested_expires_in: '99999999999999999999' })),
        400,
        'invalid_request',
        'requested_expires_in must be a positive whole number of seconds',
      ],
      [
        'a duplicated parameter',
        async () => post({ ...exchange({}), subject_token: [personToken, personToken] }),
        400,
        'invalid_request',
        'parameter subject_token must not be repeated',
      ],
      [
        'a duplicated parameter with one empty copy',
        async () => post({ ...exchange({}), subject_token: ['', personToken] }),
        400,
        'invalid_request',
        'parameter subject_token must not be repeated',
      ],
      [
        'an unknown grant type',
        async () => post({ grant_type: 'password', username: 'ada', password: 'x' }),
        400,
        'unsupported_grant_type',
        'grant_type "password" is not supported; use client_credentials or urn:ietf:params:oauth:grant-type:token-exchange',
      ],
      [
        'a client without the exchange grant',
        async () => post(exchange({}), clients.ccOnly),
        400,
        'unauthorized_client',
        'the client is not allowed grant_type urn:ietf:params:oauth:grant-type:token-exchange',
      ],
      ['a wrong client secret', async () => post(exchange({}), { id: gateway.id, secret: 'tcs_wrong' }), 401, 'invalid_client', 'client authentication failed'],
      ['an unknown client', async () => post(exchange({}), { id: 'cli_unknown', secret: 'x' }), 401, 'invalid_client', 'client authentication failed'],
      [
        'an oversized subject token',
        async () => post(exchange({ subject_token: `eyJ${'a'.repeat(9_000)}.eyJ${'b'.repeat(10)}.c` })),
        400,
        'invalid_request',
        'subject_token is longer than 8192 characters',
      ],
      [
        'a subject_token_type that does not match the token',
        async () => post(exchange({ subject_token_type: ACCESS_TOKEN_TYPE })),
        400,
        'invalid_request',
        'subject_token_type says urn:ietf:params:oauth:token-type:access_token but the token is urn:ietf:params:oauth:token-type:jwt',
      ],
      [
        'a missing subject_token',
        async () => post({ grant_type: EXCHANGE, subject_token_type: JWT_TYPE }),
        400,
        'invalid_request',
        'parameter subject_token is required',
      ],
      [
        'a missing subject_token_type',
        async () => post({ grant_type: EXCHANGE, subject_token: personToken }),
        400,
        'invalid_request',
        'parameter subject_token_type is required',
      ],
      [
        'actor_token without actor_token_type',
        async () => post(exchange({ actor_token: s.actor! })),
        400,
        'invalid_request',
        'actor_token_type is required with actor_token',
      ],
      [
        'an unsupported requested_token_type',
        async () => post(exchange({ requested_token_type: 'urn:ietf:params:oauth:token-type:id_token' })),
        400,
        'invalid_request',
        'requested_token_type must be urn:ietf:params:oauth:token-type:jwt or urn:ietf:params:oauth:token-type:access_token',
      ],
      [
        "another client's JWT as the subject",
        async () => post(exchange({ subject_token: await clientToken(t, clients.jwt!) })),
        400,
        'invalid_request',
        'subject_token was issued to another client',
      ],
      [
        "a client's JWT as the subject without client authentication",
        async () => post(exchange({ subject_token: await clientToken(t, clients.jwt!), actor_token: s.actor!, actor_token_type: ACCESS_TOKEN_TYPE }), null),
        401,
        'invalid_client',
        'subject_token is bound to a client: authenticate as that client',
      ],
      [
        "a deleted client's JWT as the subject",
        async () => {
          const doomed = await registerClient(t, org, { client_name: 'doomed-jwt', access_token_format: 'jwt' });
          const value = await clientToken(t, doomed);
          await t.call('DELETE', `/oauth2/clients/${doomed.id}`, { as: org });
          return post(exchange({ subject_token: value }));
        },
        400,
        'invalid_request',
        'subject_token: the client it was issued to no longer exists',
      ],
      [
        'neither actor token nor client',
        async () => post(exchange({}), null),
        400,
        'invalid_request',
        'actor_token is required when the request is not authenticated as a client',
      ],
      [
        'an actor of another organisation',
        async () => post(exchange({ actor_token: s.foreignActor!, actor_token_type: ACCESS_TOKEN_TYPE })),
        400,
        'invalid_request',
        'actor_token belongs to another organisation than the subject',
      ],
      [
        'a subject token that is neither JWT nor ours',
        async () => post(exchange({ subject_token: 'hello' })),
        400,
        'invalid_request',
        'subject_token is neither a JWT nor an access token of this server',
      ],
      [
        'two client authentication methods',
        async () => post({ ...exchange({}), client_secret: gateway.secret }),
        400,
        'invalid_request',
        'use one client authentication method: HTTP Basic or client_secret in the body, not both',
      ],
      [
        'a JSON body',
        async () => oauthPost(t, '/oauth2/tokens', {}, gateway, { 'content-type': 'application/json' }),
        400,
        'invalid_request',
        'the request body must be application/x-www-form-urlencoded',
      ],
      [
        'client_credentials without a client',
        async () => post({ grant_type: 'client_credentials' }, null),
        401,
        'invalid_client',
        'grant_type client_credentials requires client authentication',
      ],
      ['a missing grant_type', async () => post({ scope: 'orders:read' }), 400, 'invalid_request', 'parameter grant_type is required'],
      // Regressions from the security review of the token service:
      [
        'an actor token that is itself delegated (actor laundering)',
        async () => {
          const delegated = (await token(t, exchange({ requested_token_type: JWT_TYPE }), gateway)).body.access_token;
          return post(exchange({ actor_token: delegated, actor_token_type: JWT_TYPE }), null);
        },
        400,
        'invalid_request',
        "actor_token is itself a delegated token (it carries act); present the actor's own token",
      ],
      [
        'an actor token of a client without the exchange grant',
        async () => post(exchange({ actor_token: await clientToken(t, clients.ccOnly!), actor_token_type: ACCESS_TOKEN_TYPE }), null),
        400,
        'invalid_request',
        'actor_token belongs to a client that may not act in token exchange (deleted, or without the grant)',
      ],
      [
        'an actor token of a deleted client',
        async () => {
          const doomed = await registerClient(t, org, { client_name: 'doomed' });
          const actorToken = await clientToken(t, doomed);
          await t.call('DELETE', `/oauth2/clients/${doomed.id}`, { as: org });
          return post(exchange({ actor_token: actorToken, actor_token_type: ACCESS_TOKEN_TYPE }), null);
        },
        400,
        'invalid_request',
        'actor_token has been revoked',
      ],
      [
        "a deleted client's JWT as the actor",
        async () => {
          const doomed = await registerClient(t, org, { client_name: 'doomed-jwt-actor', access_token_format: 'jwt' });
          const actorToken = await clientToken(t, doomed);
          await t.call('DELETE', `/oauth2/clients/${doomed.id}`, { as: org });
          return post(exchange({ actor_token: actorToken, actor_token_type: JWT_TYPE }), null);
        },
        400,
        'invalid_request',
        'actor_token belongs to a client that may not act in token exchange (deleted, or without the grant)',
      ],
      [
        'a subject of a deleted person',
        async () => {
          const gone = await createPerson(t, org);
          const goneToken = await mintPersonToken(t, org, gone);
          await t.call('DELETE', `/persons/${gone}`, { as: org });
          return post(exchange({ subject_token: goneToken }));
        },
        400,
        'invalid_request',
        'subject_token: the person it was issued for no longer exists',
      ],
      [
        'may_act on the second hop by another actor',
        async () => {
          const restricted = await mintPersonToken(t, org, s.person!, { may_act: { sub: gateway.id } });
          const hop1 = (await token(t, exchange({ subject_token: restricted, requested_token_type: JWT_TYPE }), gateway)).body.access_token;
          return post(exchange({ subject_token: hop1 }), clients.other);
        },
        400,
        'invalid_request',
        "subject_token's may_act does not name this actor",
      ],
      [
        "an audience wider than the subject's on re-exchange",
        async () => {
          const narrow = (await token(t, exchange({ audience: 'https://a.internal' }), gateway)).body.access_token;
          return post({ grant_type: EXCHANGE, subject_token: narrow, subject_token_type: ACCESS_TOKEN_TYPE, audience: 'https://b.internal' });
        },
        400,
        'invalid_target',
        "audience may only narrow the subject's; not allowed: https://b.internal",
      ],
      [
        'JWT output from an audience-restricted subject',
        async () => {
          const narrow = (await token(t, exchange({ audience: 'https://a.internal' }), gateway)).body.access_token;
          return post({ grant_type: EXCHANGE, subject_token: narrow, subject_token_type: ACCESS_TOKEN_TYPE, requested_token_type: JWT_TYPE });
        },
        400,
        'invalid_target',
        'subject_token is restricted to audiences or resources, which JWT output cannot carry; ask for access_token output',
      ],
      [
        'an act chain past the depth limit',
        async () => {
          let current = (await token(t, exchange({}), gateway)).body.access_token as string;
          for (let hop = 1; hop < 10; hop++) {
            const next = await post({ grant_type: EXCHANGE, subject_token: current, subject_token_type: ACCESS_TOKEN_TYPE });
            assert.equal(next.status, 200, `hop ${hop}: ${JSON.stringify(next.body)}`);
            current = next.body.access_token;
          }
          return post({ grant_type: EXCHANGE, subject_token: current, subject_token_type: ACCESS_TOKEN_TYPE });
        },
        400,
        'invalid_request',
        "subject_token's act chain already has 10 actors, the most this server delegates",
      ],
    ];

    it(`holds at least 40 cases (${cases.length})`, () => assert.ok(cases.length >= 40));

    it('is the Error codes table of docs/token-exchange.md, case for case, with its error_description', () => {
      const doc = readFileSync(new URL('../../docs/token-exchange.md', import.meta.url), 'utf8');
      const table = doc.slice(doc.indexOf('| # | step | case |'));
      const rows = table
        .slice(0, table.indexOf('\n\n'))
        .split('\n')
        .slice(2)
        .map((line) => line.split('|').map((cell) => cell.trim()));
      // The table may add an example in parentheses to a case's name: "an unknown grant type (`password`)".
      const documented = new Map(
        rows.map(([, , , name, error, status, description]) => [
          name!,
          { answer: `${status} ${/`(\w+)`/.exec(error!)?.[1]}`, description: /^`(.*)`$/.exec(description!)?.[1] },
        ]),
      );
      const lookUp = (name: string) => documented.get(name) ?? [...documented].find(([row]) => row.replace(/ \([^()]*\)$/, '') === name)?.[1];
      assert.equal(rows.length, cases.length, 'one row per case');
      for (const [name, , status, error, description] of cases) {
        assert.equal(lookUp(name)?.answer, `${status} ${error}`, name);
        assert.equal(lookUp(name)?.description, description, name);
      }
    });

    for (const [name, request, status, error, description] of cases) {
      it(`refuses ${name}: ${status} ${error}, for its own reason, no token`, async () => {
        const response = await request();
        assert.equal(response.status, status, JSON.stringify(response.body));
        assert.equal(response.body.error, error, response.body.error_description);
        assert.equal(response.body.error_description, description);
        assert.equal(response.body.access_token, undefined);
        if (status === 401) assert.match(response.headers.get('www-authenticate') ?? '', /^Basic /);
        if (status === 503) assert.match(response.headers.get('retry-after') ?? '', /^[1-9][0-9]*$/);
      });
    }

    it('stays healthy after JWKS failures', async () => {
      assert.equal((await t.call('GET', '/healthz')).status, 200);
    });
  });
}
