import assert from 'node:assert/strict';
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { type CryptoKey, exportJWK, generateKeyPair, SignJWT } from 'jose';
import { oauthPost } from '../helpers/oauth.ts';
import type { TestOrg } from '../helpers/service.ts';
import type { SecurityStack } from './harness.ts';
import type { SecurityRow } from './rows.ts';

const ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
const now = () => Math.floor(Date.now() / 1000);

/** A private_key_jwt client of `org` with a fresh ES256 key; its id and the key. */
async function keyedClient(s: SecurityStack, org: TestOrg = s.org): Promise<{ id: string; key: CryptoKey }> {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  const registered = await register(s, org, { ...(await exportJWK(publicKey)), kid: 'k' });
  assert.equal(registered.status, 201, JSON.stringify(registered.body));
  return { id: registered.body.result.client_id, key: privateKey };
}

const register = (s: SecurityStack, org: TestOrg, key: Record<string, unknown>) =>
  s.t.call('POST', '/oauth2/clients', {
    as: org,
    body: { client_name: 'keyed', grant_types: ['client_credentials'], token_endpoint_auth_method: 'private_key_jwt', jwks: { keys: [key] } },
  });

function assertion(s: SecurityStack, key: CryptoKey, id: string, claims: Record<string, unknown> = {}): Promise<string> {
  return new SignJWT({ iss: id, sub: id, aud: s.t.service.issuer, jti: randomUUID(), exp: now() + 120, ...claims })
    .setProtectedHeader({ alg: 'ES256', kid: 'k' })
    .sign(key);
}

const present = (s: SecurityStack, clientAssertion: string) =>
  oauthPost(s.t, '/oauth2/tokens', { grant_type: 'client_credentials', client_assertion_type: ASSERTION_TYPE, client_assertion: clientAssertion });

/** Issue 29's review of private_key_jwt (a second reader, before the change landed), kept. */
export const clientAssertionRows: SecurityRow[] = [
  {
    request: 'private_key_jwt: an assertion 30 s past its exp (inside the 60 s skew) presented twice (regression: replayed without limit until the skew ended)',
    expect: 'the first one 200, the second 401 invalid_client "used already"',
    async check(s) {
      const { id, key } = await keyedClient(s);
      const late = await assertion(s, key, id, { exp: now() - 30 });
      assert.equal((await present(s, late)).status, 200);
      const again = await present(s, late);
      assert.equal(again.status, 401);
      assert.match(again.body.error_description, /used already/);
    },
  },
  {
    request: "private_key_jwt: an assertion signed with a keyed client's key but naming a keyed client of another organisation",
    expect: "401 invalid_client: the other client's key does not verify it, and no token",
    async check(s) {
      const mine = await keyedClient(s);
      const theirs = await keyedClient(s, await s.t.org());
      const answer = await present(s, await assertion(s, mine.key, theirs.id));
      assert.equal(answer.status, 401);
      assert.equal(answer.body.error, 'invalid_client');
      assert.equal(answer.body.access_token, undefined);
    },
  },
  {
    request:
      'private_key_jwt registration: an RSA key of 4160 bits, one with a 40-bit exponent (regression: each forged assertion then cost milliseconds to verify)',
    expect: '400 naming body.jwks.keys[0].n, then .e; nothing registered',
    async check(s) {
      const before = (await s.t.call('GET', '/oauth2/clients?limit=100', { as: s.org })).body.result.length;
      const big = generateKeyPairSync('rsa', { modulusLength: 4160 }).publicKey.export({ format: 'jwk' });
      const normal = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ format: 'jwk' });
      for (const [key, field] of [
        [big, 'n'],
        [{ ...normal, e: 'AQAAAAE' }, 'e'],
      ] as const) {
        const answer = await register(s, s.org, { ...key, kid: 'r' });
        assert.equal(answer.status, 400);
        assert.match(answer.body.errors[0].message, new RegExp(`^body\\.jwks\\.keys\\[0\\]\\.${field}: `));
      }
      assert.equal((await s.t.call('GET', '/oauth2/clients?limit=100', { as: s.org })).body.result.length, before);
    },
  },
  {
    request: 'private_key_jwt registration: a JWK whose n is not a string, or an object claiming a length of 10^9 (regression: a 500, or a 1 GB buffer)',
    expect: '400 naming the member, answered at once',
    async check(s) {
      for (const n of [5, { length: 1_000_000_000 }]) {
        const started = Date.now();
        const answer = await register(s, s.org, { kty: 'RSA', e: 'AQAB', n, kid: 'r' });
        assert.equal(answer.status, 400, JSON.stringify(answer.body));
        assert.match(answer.body.errors[0].message, /n/);
        assert.ok(Date.now() - started < 1_000, 'answered without building the buffer');
      }
    },
  },
  {
    request:
      'PATCH /organizations/config with svid_jwks_urls at 169.254.169.254, 10.0.0.1 and a 6to4 address (regression: accepted, and then any SVID sent with no credentials made the service connect there)',
    expect: '400 naming body.svid_jwks_urls.<trust domain> for each; the configuration unchanged',
    async check(s) {
      const before = (await s.t.call('GET', '/organizations/config', { as: s.org })).body.result;
      for (const url of ['https://169.254.169.254/latest/meta-data', 'https://10.0.0.1/bundle', 'https://[2002:a00:1::1]/bundle']) {
        const answer = await s.t.call('PATCH', '/organizations/config', { as: s.org, body: { svid_jwks_urls: { 'inside.example': url } } });
        assert.equal(answer.status, 400, `${url}: ${JSON.stringify(answer.body)}`);
        assert.match(answer.body.errors[0].message, /^body\.svid_jwks_urls\.inside\.example: must not name or resolve to/);
      }
      assert.deepEqual((await s.t.call('GET', '/organizations/config', { as: s.org })).body.result, before);
    },
  },
  {
    request:
      'spiffe_jwt: a JWT signed by any key naming a registered SPIFFE ID, and one naming an unregistered ID, sent with no credentials (regression: the answers told them apart and named the trust domains trusted)',
    expect: 'both 401 invalid_client "client authentication failed"',
    async check(s) {
      const org = await s.t.org();
      const registered = await s.t.call('POST', '/oauth2/clients', {
        as: org,
        body: { client_name: 'w', grant_types: ['client_credentials'], token_endpoint_auth_method: 'spiffe_jwt', spiffe_id: 'spiffe://corp.internal/billing' },
      });
      assert.equal(registered.status, 201);
      const { privateKey } = await generateKeyPair('ES256');
      const answers = [];
      for (const sub of ['spiffe://corp.internal/billing', 'spiffe://corp.internal/nobody']) {
        const forged = await new SignJWT({ sub, aud: [s.t.service.issuer], exp: now() + 60 }).setProtectedHeader({ alg: 'ES256', kid: 'k' }).sign(privateKey);
        const answer = await oauthPost(s.t, '/oauth2/tokens', {
          grant_type: 'client_credentials',
          client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-spiffe',
          client_assertion: forged,
        });
        answers.push([answer.status, answer.body.error_description]);
      }
      assert.deepEqual(answers, [
        [401, 'client authentication failed'],
        [401, 'client authentication failed'],
      ]);
    },
  },
  {
    request:
      'POST /oauth2/clients with jwks_uri "https://keys.example.com\\@127.0.0.1/jwks.json" (regression: stored as typed, reading as loopback in the audit and the console while the parser fetches keys.example.com)',
    expect: '201, the URL stored and shown as the parser reads it: https://keys.example.com/@127.0.0.1/jwks.json',
    async check(s) {
      const answer = await s.t.call('POST', '/oauth2/clients', {
        as: s.org,
        body: {
          client_name: 'k',
          grant_types: ['client_credentials'],
          token_endpoint_auth_method: 'private_key_jwt',
          jwks_uri: 'https://keys.example.com\\@127.0.0.1/jwks.json',
        },
      });
      // A name that does not resolve is not refused at registration (every connection is checked instead).
      assert.equal(answer.status, 201, JSON.stringify(answer.body));
      assert.equal(answer.body.result.jwks_uri, 'https://keys.example.com/@127.0.0.1/jwks.json');
    },
  },
];
