import assert from 'node:assert/strict';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { JwksCache, JwksFetchError } from '../../../src/oauth/spiffe/jwks-cache.ts';
import { backends } from '../../helpers/backends.ts';
import { type ClientCredentials, claims, createPerson, EXCHANGE, JWT_TYPE, mintPersonToken, registerClient } from '../../helpers/oauth.ts';
import type { TestOrg } from '../../helpers/service.ts';
import { assertOAuthRefusal, changes, type FuzzService, rawCall, runs, startFuzzService } from './fuzz-service.ts';
import { signCompact } from './jws-arbitraries.ts';

const KID = 'svid-key-1';
const SPIFFE_ID = 'spiffe://example.org/gateway';
const signer = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const PUBLIC_JWK = { ...signer.publicKey.export({ format: 'jwk' }), kid: KID, use: 'jwt-svid', alg: 'ES256' };
const otherJwk = () => ({ ...generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ format: 'jwk' }), use: 'jwt-svid' });

/** What the bundle endpoint answers: a status, a media type (or none) and the bytes. */
interface Served {
  status: number;
  contentType: string | undefined;
  body: string | Uint8Array;
}

/** A SPIFFE bundle endpoint on port 0 that serves, at each path, what the test put there. */
async function bundleEndpoint(): Promise<{ url: string; serve(path: string, served: Served): void; close(): Promise<void> }> {
  const documents = new Map<string, Served>();
  const server: Server = createServer((request, response) => {
    const served = documents.get(request.url ?? '') ?? { status: 404, contentType: undefined, body: '' };
    response.statusCode = served.status;
    if (served.contentType) response.setHeader('content-type', served.contentType);
    response.end(served.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    serve: (path, served) => documents.set(path, served),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

const b64url = (bytes: number) => fc.uint8Array({ minLength: bytes, maxLength: bytes }).map((b) => Buffer.from(b).toString('base64url'));
/** The signing key, broken in one way that must stop it from verifying anything. */
const brokenKey = fc
  .oneof(
    fc.record({ name: fc.constantFrom('kid', 'use', 'kty', 'crv', 'x', 'y'), remove: fc.constant(true) }),
    fc.record({ name: fc.constant('kid'), value: fc.constantFrom('svid-key-2', 'SVID-KEY-1', '', 1, null) }),
    fc.record({ name: fc.constant('use'), value: fc.constantFrom('sig', 'x509-svid', 'JWT-SVID', '', null) }),
    fc.record({ name: fc.constant('kty'), value: fc.constantFrom('RSA', 'oct', 'OKP', 'ec', '') }),
    fc.record({ name: fc.constant('crv'), value: fc.constantFrom('P-384', 'P-521', 'secp256k1', 'p-256', '') }),
    fc.record({ name: fc.constantFrom('x', 'y'), value: fc.oneof(b64url(32), b64url(31), b64url(33), fc.constantFrom('', '!!', PUBLIC_JWK.y)) }),
    fc.record({ name: fc.constant('alg'), value: fc.constantFrom('ES384', 'RS256', 'none', 'HS256', 'es256') }),
    fc.record({ name: fc.constant('d'), value: b64url(32) }),
  )
  // Regression (a CI run of issue 23's work): `y` set to PUBLIC_JWK.y is no change at all, so
  // that "broken" key was intact and rightly verified. A change must change something.
  .filter((change) => 'remove' in change || (PUBLIC_JWK as Record<string, unknown>)[change.name] !== change.value)
  .map((change) => {
    const key: Record<string, unknown> = { ...PUBLIC_JWK };
    if ('remove' in change) delete key[change.name];
    else key[change.name] = change.value;
    return key;
  });
/** Entries a bundle may hold beside the signing key: other keys, X.509 roots, garbage. */
const noise = fc.array(
  fc.oneof(
    fc.constant(null).map(() => ({ ...otherJwk(), kid: `other-${randomBytes(3).toString('hex')}` })),
    fc.constant({ ...PUBLIC_JWK, use: 'x509-svid', x5c: ['AAAA'] }),
    fc.jsonValue({ maxDepth: 2 }).filter((v) => !(typeof v === 'object' && v !== null && (v as { kid?: unknown }).kid === KID)),
  ),
  { maxLength: 3 },
);
const jsonType = fc.constantFrom('application/json', 'application/jwk-set+json', 'application/json; charset=utf-8', 'Application/JSON');
const served = (document: unknown, contentType: string | null = 'application/json', status = 200): Served => ({
  status,
  contentType: contentType ?? undefined,
  body: JSON.stringify(document) ?? '',
});

/** Bundles that hold the signing key intact: the SVID must verify whatever else they carry. */
const intact = fc.tuple(noise, noise, fc.option(fc.jsonValue({ maxDepth: 1 })), fc.boolean(), jsonType).map(([before, after, hint, withAlg, type]) => {
  const { alg: _, ...withoutAlg } = PUBLIC_JWK;
  return served({ keys: [...before, withAlg ? PUBLIC_JWK : withoutAlg, ...after], spiffe_refresh_hint: hint ?? undefined, extra: hint }, type);
});
/** Bundles from which no key of KID can be had: a JWT-SVID must never verify against them. */
const broken: fc.Arbitrary<Served> = fc.oneof(
  fc.tuple(noise, brokenKey, noise, jsonType).map(([before, key, after, type]) => served({ keys: [...before, key, ...after] }, type)),
  // Two keys under one kid: either could be meant, so neither is trusted.
  fc
    .tuple(noise, fc.oneof(fc.constant({}), fc.record({ x: b64url(32) }), fc.constantFrom({ alg: 'ES384' }, { kty: 'RSA' }, { crv: 'P-384' })))
    .map(([extra, change]) => served({ keys: [PUBLIC_JWK, ...extra, { ...PUBLIC_JWK, ...change }] })),
  fc.jsonValue({ maxDepth: 3 }).map((document) => served(document)),
  fc.record({ keys: fc.jsonValue({ maxDepth: 2 }).filter((v) => !Array.isArray(v)) }).map((document) => served(document)),
  fc.uint8Array({ maxLength: 300 }).map((body) => ({ status: 200, contentType: 'application/json', body })),
  fc.constantFrom('text/html', 'text/plain', 'application/jsonx', null).map((type) => served({ keys: [PUBLIC_JWK] }, type)),
  fc.constantFrom(204, 301, 304, 404, 500, 503).map((status) => served({ keys: [PUBLIC_JWK] }, 'application/json', status)),
  fc.constant(served({ keys: [PUBLIC_JWK], padding: 'x'.repeat(260 * 1024) })),
);

let endpoint: Awaited<ReturnType<typeof bundleEndpoint>>;
let path = 0;
/** A URL never fetched before: the cache keeps each URL's set (and its failures) for a while. */
function publish(document: Served): string {
  path += 1;
  endpoint.serve(`/bundle/${path}`, document);
  return `${endpoint.url}/bundle/${path}`;
}

before(async () => {
  endpoint = await bundleEndpoint();
});
after(() => endpoint.close());

describe('JWKS cache, fuzzed with bundle documents', () => {
  it('yields the key of a bundle that holds it intact, and from any other document nothing but a JwksFetchError or no key', async () => {
    const cache = new JwksCache({ fetchTimeoutMs: 2_000, allowLoopback: true });
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          intact.map((d) => ({ d, intact: true })),
          broken.map((d) => ({ d, intact: false })),
        ),
        async ({ d, intact }) => {
          const context = `${d.status} ${d.contentType} ${Buffer.from(d.body).toString().slice(0, 300)}`;
          const key = await cache.getKey(publish(d), KID).catch((error: unknown) => {
            assert.ok(error instanceof JwksFetchError, `${context}: ${String(error)}`);
            return undefined;
          });
          if (intact) assert.equal(key?.x, PUBLIC_JWK.x, context);
          if (key) assert.ok(key.use === 'jwt-svid' && key.kid === KID && !('d' in key) && ['EC', 'RSA'].includes(key.kty as string), context);
        },
      ),
      { numRuns: 300 },
    );
  });
});

for (const backend of backends()) {
  describe(`JWT-SVID actors against fuzzed JWKS documents, on ${backend.name}`, () => {
    let t: FuzzService;
    let org: TestOrg;
    let gateway: ClientCredentials;
    let personJwt: string;

    before(async () => {
      t = await startFuzzService(backend, { TESSERA_DEV: '1' });
      org = await t.org();
      gateway = await registerClient(t, org);
      personJwt = await mintPersonToken(t, org, await createPerson(t, org));
    });
    after(() => t?.close());

    it('accepts an SVID only against a bundle holding its key intact; any other is refused (400, or 503 with Retry-After), never a 500', async () => {
      const cases = fc.oneof(
        intact.map((d) => ({ d, intact: true })),
        broken.map((d) => ({ d, intact: false })),
      );
      await fc.assert(
        fc.asyncProperty(cases, async ({ d, intact }) => {
          const context = `${intact ? 'intact' : 'broken'} ${d.status} ${d.contentType} ${Buffer.from(d.body).toString().slice(0, 300)}`;
          const trust = { svid_jwks_urls: { 'example.org': publish(d) }, allowed_spiffe_ids: [SPIFFE_ID] };
          assert.equal((await t.call('PATCH', '/organizations/config', { as: org, body: trust })).status, 200);
          const now = Math.floor(Date.now() / 1000);
          const svid = signCompact(
            signer.privateKey,
            { alg: 'ES256', kid: KID, typ: 'JWT' },
            { sub: SPIFFE_ID, aud: [`${t.service.issuer}/oauth2/tokens`], iat: now, exp: now + 300 },
          );
          const form = { grant_type: EXCHANGE, subject_token: personJwt, subject_token_type: JWT_TYPE, actor_token: svid, actor_token_type: JWT_TYPE };
          const before = await t.snapshot();
          const response = await rawCall(
            t,
            'POST',
            '/oauth2/tokens',
            {
              'content-type': 'application/x-www-form-urlencoded',
              authorization: `Basic ${Buffer.from(`${gateway.id}:${gateway.secret}`).toString('base64')}`,
            },
            new URLSearchParams({ ...form, requested_token_type: JWT_TYPE }).toString(),
          );
          if (intact) {
            assert.equal(response.status, 200, `${context} → ${JSON.stringify(response.body)}`);
            assert.equal(claims(response.body.access_token).act.sub, SPIFFE_ID);
            return;
          }
          const error = assertOAuthRefusal(response, context);
          assert.ok(['invalid_request', 'temporarily_unavailable'].includes(error), `${context} → ${JSON.stringify(response.body)}`);
          const { audit_events: _, ...rest } = changes(before, await t.snapshot());
          assert.deepEqual(rest, {}, context);
        }),
        { numRuns: runs(backend, 150) },
      );
    });
  });
}
