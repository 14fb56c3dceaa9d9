import assert from 'node:assert/strict';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, describe, it } from 'node:test';
import { base64url, type CryptoKey, exportJWK, generateKeyPair, importJWK, type JWK, type JWTHeaderParameters, type JWTPayload, SignJWT } from 'jose';
import type { JwksFetchError } from '../../../src/oauth/spiffe/jwks-cache.ts';
import { parseSpiffeId } from '../../../src/oauth/spiffe/spiffe-id.ts';
import { SvidError, type SvidErrorCode } from '../../../src/oauth/spiffe/svid-error.ts';
import { type SvidTrust, SvidVerifier, type SvidVerifierOptions } from '../../../src/oauth/spiffe/svid-verifier.ts';

const T0 = 1_900_000_000_000;
const T0_S = T0 / 1000;
const WORKLOAD = 'spiffe://example.org/ns/prod/sa/billing';
const AUDIENCE = 'https://tessera.example/oauth/token';

/** A bundle endpoint on 127.0.0.1 whose answer each test sets; counts the requests it gets. */
class JwksServer {
  requests = 0;
  respond: (res: ServerResponse) => void = () => {};
  url = '';
  readonly server = createServer((_req, res) => {
    this.requests++;
    this.respond(res);
  });

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/bundle.json`;
  }

  serve(document: unknown, delayMs = 0): void {
    this.respond = (res) => setTimeout(() => json(res, document), delayMs);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

function json(res: ServerResponse, document: unknown, status = 200): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(document));
}

async function keyPair(alg: string, kid: string, use = 'jwt-svid') {
  const { publicKey, privateKey } = await generateKeyPair(alg, { extractable: true });
  return { privateKey, kid, alg, jwk: { ...(await exportJWK(publicKey)), kid, use } as JWK };
}
type Key = Awaited<ReturnType<typeof keyPair>>;

function sign(key: Key, claims: JWTPayload = {}, header: Partial<JWTHeaderParameters> = {}): Promise<string> {
  const payload = { sub: WORKLOAD, aud: AUDIENCE, exp: T0_S + 300, iat: T0_S, ...claims };
  return new SignJWT(payload).setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'JWT', ...header }).sign(key.privateKey as CryptoKey);
}

/** Asserts the refusal code, and that the message quotes no part of the token. */
async function refused(verifying: Promise<unknown>, code: SvidErrorCode, token?: string): Promise<SvidError> {
  let caught: unknown;
  await assert.rejects(verifying, (e: unknown) => ((caught = e), true));
  assert.ok(caught instanceof SvidError, `not an SvidError: ${String(caught)}`);
  assert.equal(caught.code, code, caught.message);
  for (const part of token?.split('.') ?? []) if (part.length > 8) assert.ok(!caught.message.includes(part), caught.message);
  return caught;
}

describe('SvidVerifier', () => {
  const jwks = new JwksServer();
  let clock = T0;
  let ec: Key;
  let rsa: Key;
  let trust: SvidTrust;
  const verifier = (options: SvidVerifierOptions = {}) => new SvidVerifier({ allowHttpLoopback: true, now: () => clock, ...options });

  before(async () => {
    await jwks.start();
    [ec, rsa] = await Promise.all([keyPair('ES256', 'k1'), keyPair('PS256', 'r1')]);
  });
  after(() => jwks.close());
  beforeEach(() => {
    clock = T0;
    jwks.requests = 0;
    jwks.serve({ keys: [ec.jwk, rsa.jwk] });
    trust = { svid_jwks_urls: { 'example.org': jwks.url }, allowed_spiffe_ids: [WORKLOAD, 'spiffe://example.org/ns/prod/sa/reports'] };
  });

  it('verifies a valid SVID and returns its SPIFFE ID, expiry and claims', async () => {
    const result = await verifier().verify(await sign(ec, { jti: 'j-1' }), trust, AUDIENCE);
    assert.equal(result.spiffeId, WORKLOAD);
    assert.equal(result.expiresAt, T0_S + 300);
    assert.equal(result.claims.jti, 'j-1');
    assert.equal(jwks.requests, 1);
  });

  it('verifies RSA-PSS, typ JOSE, no typ, and an aud list that names us', async () => {
    const v = verifier();
    for (const token of [
      await sign(rsa, { aud: ['other', AUDIENCE] }, { typ: 'JOSE' }),
      await new SignJWT({ sub: WORKLOAD, aud: AUDIENCE, exp: T0_S + 60 }).setProtectedHeader({ alg: 'ES256', kid: 'k1' }).sign(ec.privateKey as CryptoKey),
    ])
      assert.equal((await v.verify(token, trust, AUDIENCE)).spiffeId, WORKLOAD);
  });

  it('refuses alg none and HS256 (signed with the published key) before fetching any key', async () => {
    const encode = (value: unknown) => base64url.encode(JSON.stringify(value));
    const claims = { sub: WORKLOAD, aud: AUDIENCE, exp: T0_S + 300 };
    const none = `${encode({ alg: 'none', kid: 'k1', typ: 'JWT' })}.${encode(claims)}.`;
    await refused(verifier().verify(none, trust, AUDIENCE), 'SVID_ALG_NOT_ALLOWED', none);
    const secret = new TextEncoder().encode(JSON.stringify(ec.jwk));
    const hs256 = await new SignJWT(claims).setProtectedHeader({ alg: 'HS256', kid: 'k1' }).sign(secret);
    await refused(verifier().verify(hs256, trust, AUDIENCE), 'SVID_ALG_NOT_ALLOWED', hs256);
    assert.equal(jwks.requests, 0);
  });

  it('refuses a tampered payload, a foreign signer under our kid, and an alg that does not fit the key', async () => {
    const [header, , signature] = (await sign(ec)).split('.');
    const forgedClaims = { sub: WORKLOAD, aud: AUDIENCE, exp: T0_S + 86_400 * 365 };
    const tampered = `${header}.${base64url.encode(JSON.stringify(forgedClaims))}.${signature}`;
    await refused(verifier().verify(tampered, trust, AUDIENCE), 'SVID_SIGNATURE_INVALID', tampered);
    const impostor = await keyPair('ES256', 'k1');
    await refused(verifier().verify(await sign(impostor), trust, AUDIENCE), 'SVID_SIGNATURE_INVALID');
    const p384 = await keyPair('ES384', 'k1');
    await refused(verifier().verify(await sign(p384), trust, AUDIENCE), 'SVID_SIGNATURE_INVALID');
  });

  it('refuses an alg other than the one the key was published for', async () => {
    const rs256 = await keyPair('RS256', 'r2');
    jwks.serve({ keys: [{ ...rs256.jwk, alg: 'RS256' }] });
    assert.equal((await verifier().verify(await sign(rs256), trust, AUDIENCE)).spiffeId, WORKLOAD);
    // The same RSA key would verify PS256 too, had it not been published for RS256 only.
    const pss = { ...rs256, alg: 'PS256', privateKey: (await importJWK(await exportJWK(rs256.privateKey), 'PS256')) as CryptoKey };
    await refused(verifier().verify(await sign(pss), trust, AUDIENCE), 'SVID_SIGNATURE_INVALID');
  });

  it('refuses a bad typ, a missing kid, extra headers and tokens that are not JWS', async () => {
    await refused(verifier().verify(await sign(ec, {}, { typ: 'at+jwt' }), trust, AUDIENCE), 'SVID_TYP_INVALID');
    await refused(verifier().verify(await sign(ec, {}, { kid: undefined }), trust, AUDIENCE), 'SVID_KID_MISSING');
    await refused(verifier().verify(await sign(ec, {}, { jku: `${jwks.url}?evil` }), trust, AUDIENCE), 'SVID_MALFORMED');
    for (const junk of ['', 'not-a-jwt', 'a.b.c', 'a.b.c.d.e', `${base64url.encode('{"alg":"ES256","kid":"k1"}')}.${base64url.encode('[1]')}.x`]) {
      await refused(verifier().verify(junk, trust, AUDIENCE), 'SVID_MALFORMED');
    }
    assert.equal(jwks.requests, 0);
  });

  it('refuses a subject that is not a workload SPIFFE ID, without fetching keys', async () => {
    for (const sub of ['billing@example.org', 'spiffe://example.org', 'spiffe://Example.org/w', 'spiffe://example.org/w/', undefined]) {
      await refused(verifier().verify(await sign(ec, { sub }), trust, AUDIENCE), 'SVID_SUB_INVALID');
    }
    assert.equal(jwks.requests, 0);
  });

  it('refuses a trust domain that is not configured, including Object.prototype names', async () => {
    for (const sub of ['spiffe://other.org/ns/prod/sa/billing', 'spiffe://constructor/w', 'spiffe://__proto__/w']) {
      const error = await refused(verifier().verify(await sign(ec, { sub }), trust, AUDIENCE), 'SVID_TRUST_DOMAIN_UNKNOWN');
      assert.ok(error.message.includes(parseSpiffeId(sub)!.trustDomain));
    }
    assert.equal(jwks.requests, 0);
  });

  it('refuses a well-signed SVID whose SPIFFE ID is not allowed (exact match only)', async () => {
    for (const sub of ['spiffe://example.org/ns/prod/sa/intruder', `${WORKLOAD}/child`, 'spiffe://example.org/ns/prod/sa']) {
      await refused(verifier().verify(await sign(ec, { sub }), trust, AUDIENCE), 'SVID_ID_NOT_ALLOWED');
    }
  });

  it('refuses an aud that is wrong, empty or missing', async () => {
    for (const aud of ['https://other.example/token', [], ['a', 'b'], undefined]) {
      await refused(verifier().verify(await sign(ec, { aud }), trust, AUDIENCE), 'SVID_AUD_MISMATCH');
    }
  });

  it('refuses an expired SVID by the injected clock, with 30 s of tolerance', async () => {
    const v = verifier();
    const token = await sign(ec, { exp: T0_S + 60 });
    clock = T0 + 89_000;
    assert.equal((await v.verify(token, trust, AUDIENCE)).spiffeId, WORKLOAD);
    clock = T0 + 91_000;
    await refused(v.verify(token, trust, AUDIENCE), 'SVID_EXPIRED', token);
  });

  it('refuses nbf or iat in the future beyond the tolerance', async () => {
    const v = verifier();
    assert.equal((await v.verify(await sign(ec, { nbf: T0_S + 20, iat: T0_S + 20 }), trust, AUDIENCE)).spiffeId, WORKLOAD);
    await refused(v.verify(await sign(ec, { nbf: T0_S + 120 }), trust, AUDIENCE), 'SVID_NOT_YET_VALID');
    await refused(v.verify(await sign(ec, { iat: T0_S + 120 }), trust, AUDIENCE), 'SVID_NOT_YET_VALID');
  });

  it('refuses an SVID without exp, or with an exp that is not a number', async () => {
    await refused(verifier().verify(await sign(ec, { exp: undefined }), trust, AUDIENCE), 'SVID_EXP_MISSING');
    await refused(verifier().verify(await sign(ec, { exp: String(T0_S + 300) as unknown as number }), trust, AUDIENCE), 'SVID_MALFORMED');
  });

  it('refuses a token over 16 KiB before decoding it', async () => {
    const token = await sign(ec, { padding: 'x'.repeat(16 * 1024) });
    await refused(verifier().verify(token, trust, AUDIENCE), 'SVID_TOO_LARGE', token);
    assert.equal(jwks.requests, 0);
  });

  it('finds a rotated key by refetching on an unknown kid, at most once per cooldown', async () => {
    const v = verifier({ cooldownMs: 30_000 });
    await v.verify(await sign(ec), trust, AUDIENCE);
    const rotated = await keyPair('ES256', 'k2');
    const token = await sign(rotated);
    clock = T0 + 1_000;
    await refused(v.verify(token, trust, AUDIENCE), 'SVID_KEY_UNKNOWN');
    assert.equal(jwks.requests, 1, 'the first unknown kid within the cooldown of the last fetch does not refetch');
    jwks.serve({ keys: [ec.jwk, rotated.jwk] });
    clock = T0 + 20_000;
    await refused(v.verify(token, trust, AUDIENCE), 'SVID_KEY_UNKNOWN');
    assert.equal(jwks.requests, 1);
    clock = T0 + 31_000;
    assert.equal((await v.verify(token, trust, AUDIENCE)).spiffeId, WORKLOAD);
    assert.equal(jwks.requests, 2);
  });

  it('treats keys published for X.509-SVIDs only as unknown', async () => {
    jwks.serve({ keys: [{ ...ec.jwk, use: 'x509-svid' }] });
    await refused(verifier().verify(await sign(ec), trust, AUDIENCE), 'SVID_KEY_UNKNOWN');
  });

  it('answers SVID_JWKS_UNAVAILABLE when the bundle endpoint is down, and reports it', async () => {
    const closed = new JwksServer();
    await closed.start();
    await closed.close();
    const failures: JwksFetchError[] = [];
    const v = verifier({ onError: (e) => failures.push(e) });
    const token = await sign(ec);
    await refused(v.verify(token, { ...trust, svid_jwks_urls: { 'example.org': closed.url } }, AUDIENCE), 'SVID_JWKS_UNAVAILABLE', token);
    assert.equal(failures.length, 1);
    assert.match(failures[0]!.message, /ECONNREFUSED/);
  });

  it('says when to ask again after SVID_JWKS_UNAVAILABLE: the cooldown, in whole seconds', async () => {
    const closed = new JwksServer();
    await closed.start();
    await closed.close();
    const down = { ...trust, svid_jwks_urls: { 'example.org': closed.url } };
    const token = await sign(ec);
    assert.equal((await refused(verifier().verify(token, down, AUDIENCE), 'SVID_JWKS_UNAVAILABLE')).retryAfterSeconds, 30);
    assert.equal((await refused(verifier({ cooldownMs: 4_500 }).verify(token, down, AUDIENCE), 'SVID_JWKS_UNAVAILABLE')).retryAfterSeconds, 5);
    jwks.serve({ keys: [] });
    assert.equal(
      (await refused(verifier().verify(token, trust, AUDIENCE), 'SVID_KEY_UNKNOWN')).retryAfterSeconds,
      undefined,
      'only an unavailable key set says when to retry',
    );
  });

  it('answers SVID_JWKS_UNAVAILABLE when the bundle endpoint returns garbage', async () => {
    const answers: Array<(res: ServerResponse) => void> = [
      (res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html>maintenance</html>'),
      (res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"keys": ['),
      (res) => json(res, { keys: 'none' }),
      (res) => json(res, [ec.jwk]),
      (res) => json(res, { error: 'down' }, 503),
    ];
    for (const answer of answers) {
      jwks.respond = answer;
      await refused(verifier().verify(await sign(ec), trust, AUDIENCE), 'SVID_JWKS_UNAVAILABLE');
    }
    assert.equal(jwks.requests, answers.length);
  });

  it('fetches only https JWKS URLs, and plain http only on loopback when allowed', async () => {
    const token = await sign(ec);
    await refused(new SvidVerifier({ now: () => clock }).verify(token, trust, AUDIENCE), 'SVID_JWKS_UNAVAILABLE');
    const elsewhere = { ...trust, svid_jwks_urls: { 'example.org': 'http://example.org/bundle.json' } };
    await refused(verifier().verify(token, elsewhere, AUDIENCE), 'SVID_JWKS_UNAVAILABLE');
    assert.equal(jwks.requests, 0);
    const localhost = { ...trust, svid_jwks_urls: { 'example.org': jwks.url.replace('127.0.0.1', 'localhost') } };
    assert.equal((await verifier().verify(token, localhost, AUDIENCE)).spiffeId, WORKLOAD);
  });

  it('keeps a set for its spiffe_refresh_hint and refetches after it', async () => {
    jwks.serve({ keys: [ec.jwk], spiffe_refresh_hint: 120 });
    const v = verifier();
    const token = await sign(ec, { exp: T0_S + 3_600 });
    await v.verify(token, trust, AUDIENCE);
    clock = T0 + 119_000;
    await v.verify(token, trust, AUDIENCE);
    assert.equal(jwks.requests, 1);
    clock = T0 + 121_000;
    await v.verify(token, trust, AUDIENCE);
    assert.equal(jwks.requests, 2);
  });

  it('coalesces concurrent verifications into one JWKS fetch', async () => {
    jwks.serve({ keys: [ec.jwk] }, 50);
    const v = verifier();
    const tokens = await Promise.all(Array.from({ length: 20 }, (_, i) => sign(ec, { jti: `j-${i}` })));
    const results = await Promise.all(tokens.map((token) => v.verify(token, trust, AUDIENCE)));
    assert.deepEqual(new Set(results.map((r) => r.spiffeId)), new Set([WORKLOAD]));
    assert.equal(jwks.requests, 1);
  });

  it('keeps verifying with the last good set when a refetch fails (stale-if-error)', async () => {
    jwks.serve({ keys: [ec.jwk], spiffe_refresh_hint: 60 });
    const failures: JwksFetchError[] = [];
    const v = verifier({ cooldownMs: 30_000, onError: (e) => failures.push(e) });
    const token = await sign(ec, { exp: T0_S + 3_600 });
    await v.verify(token, trust, AUDIENCE);
    jwks.respond = (res) => json(res, { error: 'down' }, 503);
    clock = T0 + 61_000;
    assert.equal((await v.verify(token, trust, AUDIENCE)).spiffeId, WORKLOAD);
    assert.equal(jwks.requests, 2);
    assert.equal(failures.length, 1);
    assert.match(failures[0]!.message, /HTTP 503/);
    clock = T0 + 80_000;
    await v.verify(token, trust, AUDIENCE);
    assert.equal(jwks.requests, 2, 'a failed refetch is retried only after the cooldown');
    clock = T0 + 92_000;
    await v.verify(token, trust, AUDIENCE);
    assert.equal(jwks.requests, 3);
  });

  it('recovers once the bundle endpoint is back, without hammering it meanwhile', async () => {
    jwks.respond = (res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('oops');
    const v = verifier({ cooldownMs: 30_000 });
    const token = await sign(ec, { exp: T0_S + 3_600 });
    await refused(v.verify(token, trust, AUDIENCE), 'SVID_JWKS_UNAVAILABLE');
    clock = T0 + 10_000;
    await refused(v.verify(token, trust, AUDIENCE), 'SVID_JWKS_UNAVAILABLE');
    assert.equal(jwks.requests, 1);
    jwks.serve({ keys: [ec.jwk] });
    clock = T0 + 31_000;
    assert.equal((await v.verify(token, trust, AUDIENCE)).spiffeId, WORKLOAD);
    assert.equal(jwks.requests, 2);
  });
});
