import assert from 'node:assert/strict';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, describe, it } from 'node:test';
import { exportJWK, generateKeyPair, type JWK } from 'jose';
import { JwksCache, type JwksCacheOptions, JwksFetchError } from '../../../src/oauth/spiffe/jwks-cache.ts';

const T0 = 1_900_000_000_000;

/** Bundle endpoints on 127.0.0.1: every path answers with `respond`; requests are counted per path. */
const requests = new Map<string, number>();
let respond: (res: ServerResponse) => void = () => {};
const server = createServer((req, res) => {
  requests.set(req.url!, (requests.get(req.url!) ?? 0) + 1);
  respond(res);
});
let base = '';

function serve(document: unknown): void {
  respond = (res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(document));
}

async function publicJwk(alg: string, extra: Record<string, unknown>): Promise<JWK> {
  const { publicKey } = await generateKeyPair(alg, { extractable: true });
  return { ...(await exportJWK(publicKey)), ...extra };
}

describe('JwksCache', () => {
  let clock = T0;
  let key: JWK;
  const cache = (options: JwksCacheOptions = {}) => new JwksCache({ now: () => clock, allowLoopback: true, ...options });
  const count = (path: string) => requests.get(path) ?? 0;

  before(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    key = await publicJwk('ES256', { kid: 'k1', use: 'jwt-svid' });
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  beforeEach(() => {
    clock = T0;
    requests.clear();
    serve({ keys: [key] });
  });

  it('keeps only public EC and RSA keys for JWT-SVIDs with a unique kid', async () => {
    const rsa = await publicJwk('RS256', { kid: 'r1', use: 'jwt-svid' });
    const { privateKey } = await generateKeyPair('ES256', { extractable: true });
    serve({
      keys: [
        key,
        rsa,
        { ...key, kid: 'x509', use: 'x509-svid' },
        { ...key, kid: 'sig', use: 'sig' },
        { ...key, kid: undefined },
        { ...key, kid: '' },
        { ...(await exportJWK(privateKey)), kid: 'private', use: 'jwt-svid' },
        { kty: 'oct', k: 'c2VjcmV0', kid: 'hmac', use: 'jwt-svid' },
        { ...key, kid: 'twice' },
        { ...rsa, kid: 'twice' },
        'not a key',
        null,
      ],
    });
    const c = cache();
    assert.deepEqual(await c.getKey(`${base}/filter`, 'k1'), key);
    assert.deepEqual(await c.getKey(`${base}/filter`, 'r1'), rsa);
    for (const kid of ['x509', 'sig', 'private', 'hmac', 'twice']) assert.equal(await c.getKey(`${base}/filter`, kid), undefined, kid);
    assert.equal(count('/filter'), 1, 'unknown kids within the cooldown of the first fetch do not refetch');
  });

  it('clamps spiffe_refresh_hint to [30 s, 1 day] and defaults it to 300 s', async () => {
    for (const [hint, freshMs] of [
      [1, 30_000],
      [10 ** 9, 86_400_000],
      [undefined, 300_000],
      ['600', 300_000],
    ] as const) {
      serve({ keys: [key], spiffe_refresh_hint: hint });
      const path = `/hint-${String(hint)}`;
      const c = cache();
      clock = T0;
      await c.getKey(base + path, 'k1');
      clock = T0 + freshMs - 1;
      await c.getKey(base + path, 'k1');
      assert.equal(count(path), 1, `hint ${String(hint)}: still fresh`);
      clock = T0 + freshMs;
      await c.getKey(base + path, 'k1');
      assert.equal(count(path), 2, `hint ${String(hint)}: stale`);
    }
  });

  it('refetches for an unknown kid once per cooldown and per URL', async () => {
    const c = cache({ cooldownMs: 10_000 });
    await c.getKey(`${base}/a`, 'k1');
    await c.getKey(`${base}/b`, 'k1');
    clock = T0 + 10_000;
    assert.equal(await c.getKey(`${base}/a`, 'k9'), undefined);
    assert.equal(await c.getKey(`${base}/a`, 'k9'), undefined);
    assert.equal(await c.getKey(`${base}/b`, 'k9'), undefined);
    assert.deepEqual([count('/a'), count('/b')], [2, 2]);
  });

  it('refuses documents over 256 KiB, declared or streamed, and non-JSON', async () => {
    const big = JSON.stringify({ keys: [key], padding: 'x'.repeat(256 * 1024) });
    const answers: Array<(res: ServerResponse) => void> = [
      (res) => res.writeHead(200, { 'content-type': 'application/json' }).end(big),
      (res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        for (let i = 0; i < big.length; i += 16_384) res.write(big.slice(i, i + 16_384));
        res.end();
      },
      (res) => res.writeHead(200, { 'content-type': 'text/plain' }).end(JSON.stringify({ keys: [key] })),
      (res) => res.writeHead(200, { 'content-type': 'application/json' }).end(Buffer.from([0x7b, 0xff, 0x7d])),
    ];
    for (const [i, answer] of answers.entries()) {
      respond = answer;
      await assert.rejects(cache().getKey(`${base}/refuse-${i}`, 'k1'), (e: unknown) => e instanceof JwksFetchError && e.url === `${base}/refuse-${i}`);
    }
    respond = (res) => res.writeHead(200, { 'content-type': 'application/jwk-set+json; charset=utf-8' }).end(JSON.stringify({ keys: [key] }));
    assert.deepEqual(await cache().getKey(`${base}/jwk-set`, 'k1'), key);
  });

  it('gives up on a slow endpoint after fetchTimeoutMs', async () => {
    respond = () => {}; // never answers
    const started = Date.now();
    await assert.rejects(cache({ fetchTimeoutMs: 100 }).getKey(`${base}/slow`, 'k1'), /timed out/);
    assert.ok(Date.now() - started < 1_500);
  });

  it('throws when there is no good set, reports every failure, and survives a throwing observer', async () => {
    respond = (res) => res.writeHead(500, { 'content-type': 'application/json' }).end('{}');
    const failures: JwksFetchError[] = [];
    const c = cache({
      cooldownMs: 5_000,
      onError: (e) => {
        failures.push(e);
        throw new Error('observer bug');
      },
    });
    await assert.rejects(c.getKey(`${base}/down`, 'k1'), /HTTP 500/);
    await assert.rejects(c.getKey(`${base}/down`, 'k1'), /HTTP 500/);
    assert.equal(count('/down'), 1, 'within the cooldown the last failure is repeated without a request');
    assert.equal(failures.length, 1);
    serve({ keys: [key] });
    clock = T0 + 5_000;
    assert.deepEqual(await c.getKey(`${base}/down`, 'k1'), key);
  });

  it('shares one request between concurrent callers, unknown kids included', async () => {
    respond = (res) => setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [key] })), 50);
    const c = cache();
    const found = await Promise.all(Array.from({ length: 10 }, (_, i) => c.getKey(`${base}/shared`, i % 2 ? 'k1' : 'unknown')));
    assert.equal(found.filter((k) => k !== undefined).length, 5);
    assert.equal(count('/shared'), 1);
  });
});
