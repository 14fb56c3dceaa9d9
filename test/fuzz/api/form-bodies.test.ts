import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { backends } from '../../helpers/backends.ts';
import {
  ACCESS_TOKEN_TYPE,
  type ClientCredentials,
  clientToken,
  createPerson,
  EXCHANGE,
  JWT_TYPE,
  mintPersonToken,
  registerClient,
} from '../../helpers/oauth.ts';
import type { TestOrg } from '../../helpers/service.ts';
import { assertOAuthRefusal, changes, type FuzzService, rawCall, runs, startFuzzService } from './fuzz-service.ts';

const ENDPOINTS = ['/oauth2/tokens', '/oauth2/tokens/introspect', '/oauth2/tokens/revoke'] as const;
const NAMES = (
  'grant_type client_id client_secret scope subject_token subject_token_type actor_token actor_token_type requested_token_type ' +
  'audience resource requested_expires_in token token_type_hint'
).split(' ');
/** Percent-encodings a form parser may trip on: truncated, not hex, overlong UTF-8, NUL, lone surrogate halves. */
const ODD_SEGMENTS = ['%', '%z', '%zz', '%C0%80', '%FF%FE', '%ED%A0%80', '%00=%00', '=', '==', 'a', '+=+', '%26=%3D', 'grant_type', 'grant_type=', ';'];
const visibleAscii = (maxLength: number) => fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength });

for (const backend of backends()) {
  describe(`OAuth form bodies, fuzzed, on ${backend.name}`, () => {
    let t: FuzzService;
    let org: TestOrg;
    let client: ClientCredentials;
    const known: string[] = [];
    /** A person's JWT and the client's own opaque token: real subjects and actors. */
    let personJwt: string;
    let clientOpaque: string;

    before(async () => {
      t = await startFuzzService(backend);
      org = await t.org();
      client = await registerClient(t, org);
      personJwt = await mintPersonToken(t, org, await createPerson(t, org), { scope: 'orders:read' });
      clientOpaque = await clientToken(t, client);
      known.push(
        'client_credentials',
        EXCHANGE,
        'password',
        'authorization_code',
        JWT_TYPE,
        ACCESS_TOKEN_TYPE,
        'urn:ietf:params:oauth:token-type:id_token',
        client.id,
        client.secret,
        personJwt,
        clientOpaque,
        'orders:read',
        'orders:read orders:delete',
        'https://api.example/orders',
        '/orders',
        'https://api.example/#frag',
        '3600',
        '0',
        '-1',
        '90.5',
        '99999999999999999999',
      );
    });
    after(() => t?.close());

    const value = () =>
      fc.oneof(
        { weight: 4, arbitrary: fc.constantFrom(...known) },
        { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
        { weight: 1, arbitrary: fc.integer({ min: 16_000, max: 17_000 }).map((n) => 'v'.repeat(n)) },
      );
    const name = fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...NAMES) }, { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 12 }) });
    // Built once the fixtures exist: the known values include the client and its tokens.
    const forms = () => {
      const segment = fc.oneof(
        { weight: 6, arbitrary: fc.tuple(name, value()).map(([n, v]) => `${encodeURIComponent(n)}=${encodeURIComponent(v)}`) },
        { weight: 2, arbitrary: fc.tuple(name, value()).map(([n, v]) => `${n}=${v}`) },
        { weight: 2, arbitrary: fc.constantFrom(...ODD_SEGMENTS) },
      );
      return fc.oneof(
        { weight: 8, arbitrary: fc.tuple(fc.array(segment, { maxLength: 12 }), fc.constantFrom('&', '&&', ';')).map(([parts, joiner]) => parts.join(joiner)) },
        { weight: 1, arbitrary: fc.integer({ min: 33_000, max: 40_000 }).map((n) => `grant_type=client_credentials&scope=${'s'.repeat(n)}`) },
        { weight: 1, arbitrary: fc.jsonValue().map((v) => JSON.stringify(v)) },
      );
    };
    const basic = (text: string) => `Basic ${Buffer.from(text).toString('base64')}`;
    const authorization = () =>
      fc.oneof(
        fc.constant(undefined),
        fc.constant(basic(`${client.id}:${client.secret}`)),
        fc.constant(basic(`${client.id}:wrong`)),
        fc.constantFrom(
          'Basic',
          'Basic ',
          'Basic ====',
          'basic Zm9v',
          'Bearer abc',
          basic('no-colon'),
          basic('%zz:secret'),
          basic(':'),
          basic('\u0000:\u0000'),
        ),
        visibleAscii(60).map((s) => basic(s)),
        visibleAscii(60),
        fc.integer({ min: 4_000, max: 7_000 }).map((n) => `Basic ${'A'.repeat(n)}`),
      );
    const contentType = fc.constantFrom(
      'application/x-www-form-urlencoded',
      'application/x-www-form-urlencoded; charset=UTF-8',
      'application/x-www-form-urlencoded; charset=iso-8859-1',
      'Application/X-WWW-Form-Urlencoded',
      'application/json',
      'text/plain',
      'multipart/form-data; boundary=x',
      undefined,
    );

    /** Asserts the OAuth contract of one answer; a refusal may write its audit event and nothing else. */
    const send = async (endpoint: string, headers: Record<string, string>, body: string, context: string) => {
      const before = await t.snapshot();
      const response = await rawCall(t, 'POST', endpoint, headers, body);
      const after = await t.snapshot();
      assert.ok(response.status < 500, `${context} → ${response.status} ${JSON.stringify(response.body)}`);
      if (response.status !== 200) {
        assertOAuthRefusal(response, context);
        // A refusal at the token endpoint is audited (docs/token-exchange.md), and that is all it
        // writes, but for a wrong secret of a known client: that is counted against the client's
        // audited share (10 a minute), in rate_limits.
        const { audit_events: audit, rate_limits: _counted, ...rest } = changes(before, after);
        assert.deepEqual(rest, {}, `a refusal wrote more than its audit event (${context})`);
        assert.ok(audit === undefined || (endpoint === '/oauth2/tokens' && audit.removed.length === 0), context);
        for (const row of audit?.added ?? []) assert.match(row, /refused/, `${context}: ${row}`);
        return response;
      }
      if (endpoint === '/oauth2/tokens') assert.equal(typeof response.body.access_token, 'string', context);
      if (endpoint === '/oauth2/tokens/introspect') assert.equal(typeof response.body.active, 'boolean', context);
      return response;
    };

    it('answers any form, however encoded, with a catalogued OAuth error at its status or a success; never a 5xx, never a token on refusal', async () => {
      const cases = fc.record({ endpoint: fc.constantFrom(...ENDPOINTS), body: forms(), authorization: authorization(), contentType });
      await fc.assert(
        fc.asyncProperty(cases, async ({ endpoint, body, authorization, contentType }) => {
          const headers: Record<string, string> = {};
          if (contentType) headers['content-type'] = contentType;
          if (authorization !== undefined) headers.authorization = authorization;
          await send(endpoint, headers, body, `${endpoint} [${contentType}] [${authorization?.slice(0, 80)}] ${JSON.stringify(body.slice(0, 300))}`);
        }),
        { numRuns: runs(backend, 200) },
      );
    });

    it('answers a valid request with one to three parameters changed the same way', async () => {
      const requests = () => {
        const exchange = { grant_type: EXCHANGE, subject_token: personJwt, subject_token_type: JWT_TYPE };
        return [
          { endpoint: '/oauth2/tokens', params: { grant_type: 'client_credentials', scope: 'orders:read' } },
          { endpoint: '/oauth2/tokens', params: { ...exchange, scope: 'orders:read', audience: 'orders', resource: 'https://api.example/orders' } },
          { endpoint: '/oauth2/tokens', params: { ...exchange, requested_token_type: JWT_TYPE, requested_expires_in: '300' } },
          { endpoint: '/oauth2/tokens', params: { ...exchange, actor_token: clientOpaque, actor_token_type: ACCESS_TOKEN_TYPE }, clientless: true },
          { endpoint: '/oauth2/tokens/introspect', params: { token: personJwt } },
          { endpoint: '/oauth2/tokens/introspect', params: { token: clientOpaque }, adminKey: true },
          { endpoint: '/oauth2/tokens/revoke', params: { token: 'tat_0000000000AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' } },
        ];
      };
      const change = fc.oneof(
        fc.record({ kind: fc.constant('drop' as const), name: fc.constantFrom(...NAMES) }),
        fc.record({ kind: fc.constant('set' as const), name, value: value() }),
        fc.record({ kind: fc.constant('repeat' as const), name: fc.constantFrom(...NAMES), value: value() }),
        fc.record({ kind: fc.constant('auth' as const), value: fc.constantFrom('none', 'post', 'wrong', 'both') }),
      );
      await fc.assert(
        fc.asyncProperty(fc.constantFrom(...requests()), fc.array(change, { minLength: 1, maxLength: 3 }), async (request, changes) => {
          const pairs: [string, string][] = Object.entries(request.params);
          let auth = request.clientless ? 'none' : request.adminKey ? 'key' : 'basic';
          for (const c of changes) {
            if (c.kind === 'drop') pairs.splice(0, pairs.length, ...pairs.filter(([n]) => n !== c.name));
            else if (c.kind === 'set') pairs.splice(0, pairs.length, ...pairs.filter(([n]) => n !== c.name), [c.name, c.value]);
            else if (c.kind === 'repeat') pairs.push([c.name, c.value]);
            else auth = c.value;
          }
          const form = new URLSearchParams(pairs);
          const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
          if (auth === 'basic' || auth === 'both') headers.authorization = basic(`${client.id}:${client.secret}`);
          if (auth === 'wrong') headers.authorization = basic(`${client.id}:${client.secret}x`);
          if (auth === 'post' || auth === 'both') form.append('client_id', client.id), form.append('client_secret', client.secret);
          if (auth === 'key') Object.assign(headers, org.headers);
          const context = `${request.endpoint} [${auth}] ${form.toString().slice(0, 400)}`;
          await send(request.endpoint, headers, form.toString(), context);
        }),
        { numRuns: runs(backend, 300) },
      );
    });

    it('refuses a request with bad client authentication as invalid_client or invalid_request, issuing nothing', async () => {
      const badAuthorization = fc.oneof(
        fc.constantFrom(
          'Basic',
          'Basic ====',
          'Bearer abc',
          basic('no-colon'),
          basic('%zz:secret'),
          basic(`${client.id}:wrong`),
          basic(`${client.id}%:x`),
          basic('%00:x'),
          basic('\u0000:x'),
        ),
        visibleAscii(60).map((s) => basic(s)),
        visibleAscii(60).filter((s) => !/^\s*basic\s/i.test(s)),
      );
      const grant = fc.constantFrom('grant_type=client_credentials', `grant_type=${encodeURIComponent(EXCHANGE)}`, '');
      await fc.assert(
        fc.asyncProperty(fc.constantFrom(...ENDPOINTS), badAuthorization, grant, async (endpoint, authorization, form) => {
          const context = `${endpoint} [${authorization}] ${form}`;
          const before = await t.snapshot();
          const response = await rawCall(t, 'POST', endpoint, { 'content-type': 'application/x-www-form-urlencoded', authorization }, `${form}&token=x`);
          assert.ok(['invalid_client', 'invalid_request'].includes(assertOAuthRefusal(response, context)), context);
          // A wrong secret of a known client also counts against its audited share (rate_limits).
          const { audit_events: _, rate_limits: _counted, ...rest } = changes(before, await t.snapshot());
          assert.deepEqual(rest, {}, context);
        }),
        { numRuns: runs(backend, 150) },
      );
    });

    it('regression: a client_id holding U+0000 answered 500 server_error on PostgreSQL', async () => {
      const form = { 'content-type': 'application/x-www-form-urlencoded' };
      const cases: [Record<string, string>, string, string, string][] = [
        [
          form,
          'grant_type=client_credentials&client_id=%00&client_secret=x',
          'invalid_request',
          'parameter client_id must not contain the NUL character (U+0000)',
        ],
        [{ ...form, authorization: basic('%00:x') }, 'grant_type=client_credentials', 'invalid_client', 'client authentication failed'],
        [form, 'grant_type=client_credentials&scope=a%00', 'invalid_request', 'parameter scope must not contain the NUL character (U+0000)'],
      ];
      for (const [headers, body, error, description] of cases) {
        for (const endpoint of ENDPOINTS) {
          const response = await send(endpoint, headers, body, `${endpoint} ${body}`);
          assert.deepEqual(response.body, { error, error_description: description }, `${endpoint} ${body}`);
        }
      }
    });
  });
}
