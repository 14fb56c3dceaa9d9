import assert from 'node:assert/strict';
import { startJwksServer } from '../helpers/jwks-server.ts';
import {
  ACCESS_TOKEN_TYPE,
  closedPortUrl,
  EXCHANGE,
  forgeServiceJwt,
  introspect,
  JWT_TYPE,
  type OAuthResponse,
  oauthPost,
  registerClient,
  serviceSigningKey,
  token,
} from '../helpers/oauth.ts';
import type { SecurityStack } from './harness.ts';
import type { SecurityRow } from './rows.ts';

/** A person JWT forged with the service's own signing key, so only the named claim is wrong. */
async function forged(s: SecurityStack, claims: Record<string, unknown>) {
  const person = await s.person();
  return forgeServiceJwt(s.t, await serviceSigningKey(s.t), { orgId: s.org.orgId, subject: person.id }, claims);
}

const exchange = (s: SecurityStack, subject: string, extra: Record<string, string> = {}) =>
  token(s.t, { grant_type: EXCHANGE, subject_token: subject, subject_token_type: JWT_TYPE, requested_token_type: JWT_TYPE, ...extra }, s.client);

function refused(response: OAuthResponse, status: number, error: string, description: RegExp): void {
  assert.equal(response.status, status, JSON.stringify(response.body));
  assert.equal(response.body.error, error);
  assert.match(response.body.error_description, description);
}

const now = () => Math.floor(Date.now() / 1000);

const claimRows: [string, Record<string, unknown>, RegExp][] = [
  ['aud naming another service', { aud: 'https://elsewhere.example' }, /^subject_token is not meant for this service/],
  ['no aud at all', { aud: undefined }, /^subject_token is not meant for this service/],
  ['iat 120 s in the future (skew allowed: 60 s)', { iat: now() + 120 }, /^subject_token was issued in the future/],
  ['nbf 60 s in the future', { nbf: now() + 60 }, /^subject_token is not valid yet/],
  ['act as a string', { act: 'per_someone' }, /^subject_token has a malformed claim: "act" must be an object/],
  ['act without a string sub', { act: { sub: 42 } }, /^subject_token has a malformed claim: "act" must name its actor/],
  ['act with extra members', { act: { sub: 'cli_x', scope: 'admin' } }, /^subject_token has a malformed claim: "act" may hold only/],
  [
    'act nested 11 deep',
    { act: Array.from({ length: 11 }).reduce<unknown>((inner) => ({ sub: 'cli_x', ...(inner ? { act: inner } : {}) }), undefined) },
    /nests more than 10 actors/,
  ],
  ['may_act with extra members', { may_act: { sub: 'cli_x', admin: true } }, /^subject_token has a malformed claim: "may_act"/],
];

export const tokenEndpointRows: SecurityRow[] = [
  ...claimRows.map(
    ([name, claims, description]): SecurityRow => ({
      request: `token exchange with a person JWT subject whose ${name} (signed with the service's own key)`,
      expect: `400 invalid_request, ${description.source}; nothing issued`,
      async check(s) {
        refused(await exchange(s, await forged(s, claims)), 400, 'invalid_request', description);
      },
    }),
  ),
  {
    request: 'the JWT form of a client_credentials token as subject, presented by another client',
    expect: '400 invalid_request "subject_token was issued to another client" — bound to its client, as the opaque form is',
    async check(s) {
      const jwtClient = await registerClient(s.t, s.org, { access_token_format: 'jwt' });
      const own = (await token(s.t, { grant_type: 'client_credentials' }, jwtClient)).body.access_token as string;
      refused(await exchange(s, own), 400, 'invalid_request', /^subject_token was issued to another client/);
      const itself = await token(s.t, { grant_type: EXCHANGE, subject_token: own, subject_token_type: JWT_TYPE, requested_token_type: JWT_TYPE }, jwtClient);
      assert.equal(itself.status, 200, 'the client acting for itself is fine');
    },
  },
  {
    request: 'the opaque form of a client_credentials token as subject, presented with no client authentication',
    expect: '401 invalid_client "subject_token is bound to a client"',
    async check(s) {
      const own = (await token(s.t, { grant_type: 'client_credentials' }, s.client)).body.access_token as string;
      const clientless = await token(s.t, {
        grant_type: EXCHANGE,
        subject_token: own,
        subject_token_type: ACCESS_TOKEN_TYPE,
        actor_token: (await s.person()).token,
        actor_token_type: JWT_TYPE,
      });
      refused(clientless, 401, 'invalid_client', /^subject_token is bound to a client/);
    },
  },
  {
    request: 'subject_token sent twice, one copy empty (subject_token=&subject_token=<token>)',
    expect: '400 invalid_request "parameter subject_token must not be repeated"',
    async check(s) {
      const { token: subject } = await s.person();
      const response = await oauthPost(s.t, '/oauth2/tokens', { grant_type: EXCHANGE, subject_token: ['', subject], subject_token_type: JWT_TYPE }, s.client);
      refused(response, 400, 'invalid_request', /^parameter subject_token must not be repeated/);
    },
  },
  {
    request: "a JWT-SVID actor whose trust domain's JWKS cannot be fetched (closed port)",
    expect: '503 temporarily_unavailable with Retry-After; an SVID its JWKS does not validate stays 400',
    async check(s) {
      const jwks = await startJwksServer();
      const impostor = await startJwksServer();
      try {
        const config = await s.t.call('PATCH', '/organizations/config', {
          as: s.org,
          body: {
            svid_jwks_urls: { 'down.example': await closedPortUrl(), 'example.org': jwks.url },
            allowed_spiffe_ids: ['spiffe://down.example/gw', 'spiffe://example.org/gw'],
          },
        });
        assert.equal(config.status, 200, JSON.stringify(config.body));
        const aud = [`${s.t.service.issuer}/oauth2/tokens`];
        const { token: subject } = await s.person();
        const down = await exchange(s, subject, { actor_token: await jwks.svid({ sub: 'spiffe://down.example/gw', aud }), actor_token_type: JWT_TYPE });
        refused(down, 503, 'temporarily_unavailable', /^actor_token: the JWT-SVID's trust domain key set is unavailable/);
        assert.ok(Number(down.headers.get('retry-after')) > 0);
        const forgedSvid = await exchange(s, subject, {
          actor_token: await impostor.svid({ sub: 'spiffe://example.org/gw', aud }),
          actor_token_type: JWT_TYPE,
        });
        refused(forgedSvid, 400, 'invalid_request', /^actor_token: the JWT-SVID's signature does not verify/);
      } finally {
        await Promise.all([jwks.close(), impostor.close()]);
      }
    },
  },
  {
    request: 'POST /oauth2/tokens/introspect by a client, of a token issued to another client',
    expect: '200 {"active":false}; the admin key of the organisation sees it active',
    async check(s) {
      const other = await registerClient(s.t, s.org);
      const theirs = (await token(s.t, { grant_type: 'client_credentials' }, other)).body.access_token as string;
      assert.deepEqual((await introspect(s.t, theirs, s.client)).body, { active: false });
      assert.equal((await introspect(s.t, theirs, other)).body.active, true);
      assert.equal((await introspect(s.t, theirs, s.org)).body.active, true);
    },
  },
  {
    request: "POST /oauth2/tokens/introspect with an organisation's integration key",
    expect: '401 invalid_client "an integration key may not use this operation"',
    async check(s) {
      const key = await s.t.call('POST', '/organizations/api-keys', { as: s.org, body: { name: `integration-${Date.now()}`, kind: 'integration' } });
      assert.equal(key.status, 201, JSON.stringify(key.body));
      const response = await introspect(s.t, 'tat_whatever', { 'service-orgid': s.org.orgId, 'service-api-key': key.body.result.api_key });
      refused(response, 401, 'invalid_client', /integration key may not use this operation/);
    },
  },
  {
    request: 'issue 24 review: 25 wrong secrets for a known client id (client ids are no secret)',
    expect: '401 each; 10 token.client_credentials invalid_client events in that minute, not 25 (500 wrote 500)',
    async check(s) {
      const org = await s.t.org();
      const target = await registerClient(s.t, org, { grant_types: ['client_credentials'] });
      for (let i = 0; i < 25; i++)
        assert.equal((await token(s.t, { grant_type: 'client_credentials' }, { id: target.id, secret: `tcs_wrong${i}` })).status, 401);
      const events = (await s.t.call('GET', '/audit/events?type=token.client_credentials&limit=100', { as: org })).body.result;
      assert.equal(events.filter((e: { data: { error?: string } }) => e.data.error === 'invalid_client').length, 10);
    },
  },
];
