import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { CLIENT_AUTH_FAILURES_AUDITED } from '../../src/oauth/endpoints/token-endpoint.ts';
import { unauditedAttempts } from '../helpers/authn.ts';
import { backends } from '../helpers/backends.ts';
import { type ClientCredentials, oauthPost, registerClient, token } from '../helpers/oauth.ts';
import { startTestService, TEST_SECRET, type TestOrg, type TestService } from '../helpers/service.ts';

for (const backend of backends()) {
  describe(`client_credentials on ${backend.name}`, () => {
    let t: TestService;
    let org: TestOrg;
    let client: ClientCredentials;

    before(async () => {
      t = await startTestService(backend);
      org = await t.org();
      client = await registerClient(t, org, { access_token_duration: 600 });
    });
    after(() => t.close());

    it('issues an opaque token with every client scope by default, no refresh token, not cacheable', async () => {
      const response = await token(t, { grant_type: 'client_credentials' }, client);
      assert.equal(response.status, 200);
      assert.match(response.body.access_token, /^tat_[0-9a-hjkmnp-tv-z]{10}[A-Za-z0-9_-]{43}$/);
      assert.deepEqual(
        { ...response.body, access_token: undefined },
        { access_token: undefined, token_type: 'Bearer', expires_in: 600, scope: 'orders:read orders:write' },
      );
      assert.equal(response.headers.get('cache-control'), 'no-store');
      assert.equal(response.body.refresh_token, undefined);
    });

    it('accepts client_secret_post as well as client_secret_basic', async () => {
      const response = await oauthPost(t, '/oauth2/tokens', {
        grant_type: 'client_credentials',
        client_id: client.id,
        client_secret: client.secret,
        scope: 'orders:read',
      });
      assert.equal(response.status, 200);
      assert.equal(response.body.scope, 'orders:read');
    });

    it('caps the lifetime at the organisation ceiling', async () => {
      const other = await t.org();
      await t.call('PATCH', '/organizations/config', { as: other, body: { token_lifetime_ceiling: 120 } });
      const long = await registerClient(t, other, { access_token_duration: 86_400 });
      assert.equal((await token(t, { grant_type: 'client_credentials' }, long)).body.expires_in, 120);
    });

    it('issues an RFC 9068 JWT verifiable against the JWKS when the client asks for JWTs', async () => {
      const jwtClient = await registerClient(t, org, { access_token_format: 'jwt' });
      const response = await token(t, { grant_type: 'client_credentials', scope: 'orders:write' }, jwtClient);
      assert.equal(response.status, 200);
      const { payload, protectedHeader } = await jwtVerify(response.body.access_token, createRemoteJWKSet(new URL(`${t.url}/.well-known/jwks.json`)), {
        issuer: t.service.issuer,
        typ: 'at+jwt',
        algorithms: ['ES256'],
      });
      assert.equal(protectedHeader.typ, 'at+jwt');
      assert.deepEqual([payload.sub, payload.client_id, payload.scope, payload.oid], [jwtClient.id, jwtClient.id, 'orders:write', org.orgId]);
      assert.ok(payload.jti && payload.iat && payload.exp! - payload.iat! === 3600);
    });

    it('records each grant, granted or refused, in the audit log', async () => {
      await token(t, { grant_type: 'client_credentials', scope: 'admin' }, client);
      const events = (await t.call('GET', '/audit/events?type=token.client_credentials&limit=100', { as: org })).body.result;
      const results = events.map((e: { data: { result: string; error?: string } }) => `${e.data.result}${e.data.error ? `:${e.data.error}` : ''}`);
      assert.ok(results.includes('granted'));
      assert.ok(results.includes('refused:invalid_scope'));
      await token(t, { grant_type: 'client_credentials' }, { id: client.id, secret: 'tcs_wrong' });
      const ccOnly = await registerClient(t, org, { grant_types: ['client_credentials'] });
      await token(
        t,
        { grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange', subject_token: 'x', subject_token_type: 'urn:ietf:params:oauth:token-type:jwt' },
        ccOnly,
      );
      const all = (await t.call('GET', '/audit/events?limit=100', { as: org })).body.result.map(
        (e: { type: string; data: { error?: string } }) => `${e.type}:${e.data.error ?? 'ok'}`,
      );
      assert.ok(all.includes('token.client_credentials:invalid_client'), 'a wrong secret of a registered client is audited');
      assert.ok(all.includes('token.exchange:unauthorized_client'), 'a grant the client may not use is audited');
      assert.ok(events.some((e: { data: { client_id: string } }) => e.data.client_id === client.id));
      assert.ok(events.every((e: { data: { client_id: unknown } }) => typeof e.data.client_id === 'string'));
      assert.ok(!JSON.stringify(events).includes('tat_'), 'no token in the audit log');
    });

    it(`regression: wrong secrets for a known client are audited ${CLIENT_AUTH_FAILURES_AUDITED.limit} a minute, the rest counted (500 wrote 500 events)`, async () => {
      const target = await registerClient(t, org, { grant_types: ['client_credentials'] });
      const unaudited = { method: 'client_secret', outcome: 'failure', reason: 'invalid_client' };
      const before = await unauditedAttempts(t, unaudited);
      const tries = CLIENT_AUTH_FAILURES_AUDITED.limit + 15;
      for (let i = 0; i < tries; i++) {
        assert.equal((await token(t, { grant_type: 'client_credentials' }, { id: target.id, secret: `tcs_wrong${i}` })).status, 401);
      }
      const events = (await t.call('GET', '/audit/events?type=token.client_credentials&limit=100', { as: org })).body.result;
      const ofTarget = events.filter(
        (e: { data: { client_id: string; error?: string } }) => e.data.client_id === target.id && e.data.error === 'invalid_client',
      );
      assert.equal(ofTarget.length, CLIENT_AUTH_FAILURES_AUDITED.limit);
      assert.equal(await unauditedAttempts(t, unaudited), before + 15);
    });
  });
}

describe('Authorization server metadata, JWKS and key rotation', () => {
  let t: TestService;
  before(async () => {
    t = await startTestService(backends()[0]!);
  });
  after(() => t.close());

  it('publishes RFC 8414 metadata pointing at its own endpoints', async () => {
    const metadata = (await t.call('GET', '/.well-known/oauth-authorization-server')).body;
    assert.equal(metadata.issuer, t.service.issuer);
    assert.equal(metadata.token_endpoint, `${t.service.issuer}/oauth2/tokens`);
    assert.deepEqual(metadata.grant_types_supported, ['client_credentials', 'urn:ietf:params:oauth:grant-type:token-exchange']);
    assert.deepEqual(metadata.token_endpoint_auth_methods_supported, ['client_secret_basic', 'client_secret_post', 'private_key_jwt', 'spiffe_jwt']);
    assert.equal((await t.call('GET', new URL(metadata.jwks_uri).pathname)).status, 200);
  });

  it('keeps the private key sealed in the store', async () => {
    const [key] = await t.service.store.listSigningKeys();
    assert.ok(key);
    assert.match(key.sealedPrivateJwk, /^v1\./);
    assert.equal((key.publicJwk as { d?: string }).d, undefined);
    assert.ok(!key.sealedPrivateJwk.includes('"d"'));
  });

  it('rotates across replicas: old tokens keep verifying, new ones carry the new key', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'tessera-rotate-'));
    const file = `sqlite:${join(directory, 'db.sqlite')}`;
    const shared = { name: 'sqlite' as const, fresh: async () => ({ url: file, drop: async () => {} }) };
    // Replicas behind one address share one issuer.
    const env = { TESSERA_ISSUER: 'https://id.example.test' };
    const a = await startTestService(shared, env);
    let b: TestService | undefined;
    try {
      const org = await a.org();
      const client = await registerClient(a, org, { access_token_format: 'jwt' });
      const before = (await token(a, { grant_type: 'client_credentials' }, client)).body.access_token;
      const { KeyRing } = await import('../../src/oauth/keys/key-ring.ts');
      await a.service.store.rotateSigningKey(await new KeyRing(a.service.store, 'test-secret-that-is-at-least-32-chars').generate(), Date.now());

      b = await startTestService(shared, env); // a replica started after the rotation
      const after = (await token(b, { grant_type: 'client_credentials' }, client)).body.access_token;
      assert.notEqual(kid(after), kid(before), 'new tokens are signed with the new key');
      // Each replica accepts the other's tokens: the retired key stays published, and an
      // unknown kid makes a replica reload its keys.
      assert.equal((await oauthPost(a, '/oauth2/tokens/introspect', { token: after }, client)).body.active, true);
      assert.equal((await oauthPost(b, '/oauth2/tokens/introspect', { token: before }, client)).body.active, true);
      const published = (await b.call('GET', '/.well-known/jwks.json')).body.keys.map((k: { kid: string }) => k.kid);
      assert.deepEqual(new Set(published), new Set([kid(before), kid(after)]));
      await jwtVerify(before, createRemoteJWKSet(new URL(`${b.url}/.well-known/jwks.json`)));
    } finally {
      await b?.close();
      await a.close();
      rmSync(directory, { recursive: true, force: true });
    }
  });
});

function kid(jwt: string): string {
  return JSON.parse(Buffer.from(jwt.split('.')[0]!, 'base64url').toString('utf8')).kid;
}

describe('Key ring faults', () => {
  it('refuses to rotate with a secret that cannot open the current key, and keeps verifying when signing breaks', async () => {
    const t = await startTestService(backends()[0]!);
    try {
      const org = await t.org();
      const client = await registerClient(t, org, { access_token_format: 'jwt' });
      const issued = (await token(t, { grant_type: 'client_credentials' }, client)).body.access_token;
      const { KeyRing } = await import('../../src/oauth/keys/key-ring.ts');
      await assert.rejects(new KeyRing(t.service.store, 'a-different-secret-of-at-least-32-chars').init(), /cannot unseal signing key/);
      // A key sealed under the wrong secret reaches the store anyway (as an old CLI could do it):
      await t.service.store.rotateSigningKey(await new KeyRing(t.service.store, 'a-different-secret-of-at-least-32-chars').generate(), Date.now());
      const ring = new KeyRing(t.service.store, TEST_SECRET);
      await assert.rejects(ring.init(), /cannot unseal/);
      assert.equal((await ring.jwks()).keys.length, 2, 'public keys stay published');
      assert.ok(await ring.verificationKey(kid(issued)), 'and usable for verification');
      await assert.rejects(ring.signingKey(), /cannot unseal/);
    } finally {
      await t.close();
    }
  });

  it('says which secret sealed a key it cannot open, when it is the development secret or when the development secret is not', async () => {
    const { DEVELOPMENT_SECRET } = await import('../../src/config/service-config.ts');
    const { KeyRing } = await import('../../src/oauth/keys/key-ring.ts');
    const other = 'a-different-secret-of-at-least-32-chars';
    // A demo's database (npm start: TESSERA_DEV=1, no TESSERA_SECRET) opened with a TESSERA_SECRET.
    const demo = await startTestService(backends()[0]!, { TESSERA_DEV: '1', TESSERA_SECRET: '' });
    try {
      await assert.rejects(
        new KeyRing(demo.service.store, other).init(),
        /cannot unseal signing key \w+: TESSERA_SECRET is not the secret it was sealed with, which is the development secret \(TESSERA_DEV=1 without TESSERA_SECRET, as npm start runs\); run with TESSERA_DEV=1 and TESSERA_SECRET unset/,
      );
      await new KeyRing(demo.service.store, DEVELOPMENT_SECRET).init();
    } finally {
      await demo.close();
    }
    // The other way round: a database of a TESSERA_SECRET opened in development mode.
    const sealed = await startTestService(backends()[0]!);
    try {
      await assert.rejects(
        new KeyRing(sealed.service.store, DEVELOPMENT_SECRET).init(),
        /cannot unseal signing key \w+: it was sealed with a TESSERA_SECRET, not with the development secret .*; set TESSERA_SECRET to the secret it was sealed with/,
      );
      await assert.rejects(
        new KeyRing(sealed.service.store, other).init(),
        /TESSERA_SECRET is not the secret it was sealed with \(nor the development secret of TESSERA_DEV=1\)/,
      );
    } finally {
      await sealed.close();
    }
  });
});
