import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { head, hostOf, type SecurityStack, sendRaw } from './harness.ts';
import type { SecurityRow } from './rows.ts';

const ON = 'header, on except /open/*';
const gatewayOf = (s: SecurityStack) => s.gateways[ON].url;
const bearer = (token: string): [string, string] => ['Authorization', `Bearer ${token}`];
const get = (url: string, path: string, headers: [string, string][]) => sendRaw(url, head('GET', path, [['Host', hostOf(url)], ...headers]));
const lastSeen = (s: SecurityStack) => s.upstream.requests.at(-1)!;

/** The caller's request is refused with this status and code, and neither the upstream nor (optionally) the service heard of it. */
async function refused(
  s: SecurityStack,
  send: () => Promise<{ status: number; body: string; headers: Record<string, string> }>,
  status: number,
  code: string,
  serviceCalled = false,
) {
  const forwarded = s.upstream.requests.length;
  const asked = s.relay.count;
  const response = await send();
  assert.equal(response.status, status, response.body);
  assert.ok(response.body.includes(code), `${code} in ${response.body}`);
  assert.equal(s.upstream.requests.length, forwarded, 'nothing was forwarded');
  if (!serviceCalled) assert.equal(s.relay.count, asked, 'the token endpoint was not called');
  return response;
}

const SPOOFED: [string, string][] = [
  ['X-Forwarded-For', '203.0.113.9'],
  ['X-Forwarded-Host', 'admin.internal'],
  ['X-Forwarded-Proto', 'https'],
  ['Forwarded', 'for=203.0.113.9;host=admin.internal;proto=https'],
  ['X-Real-IP', '203.0.113.9'],
];

export const gatewayRows: SecurityRow[] = [
  {
    request: 'X-Forwarded-For/-Host/-Proto, Forwarded and X-Real-IP written by an untrusted caller',
    expect: "replaced by the gateway's own: the peer address, the Host asked for, http",
    async check(s) {
      const { token } = await s.person();
      await get(gatewayOf(s), '/api/x', [bearer(token), ...SPOOFED]);
      const seen = lastSeen(s).headers;
      assert.deepEqual(
        [seen['x-forwarded-for'], seen['x-forwarded-host'], seen['x-forwarded-proto'], seen['x-real-ip']],
        ['127.0.0.1', hostOf(gatewayOf(s)), 'http', '127.0.0.1'],
      );
      assert.equal(seen.forwarded, `for=127.0.0.1;host="${hostOf(gatewayOf(s))}";proto=http`);
    },
  },
  {
    request: 'the same headers from a peer in trusted_proxies',
    expect: 'kept; the peer appended to X-Forwarded-For and Forwarded',
    async check(s) {
      const { token } = await s.person();
      await get(s.trusting.url, '/api/x', [bearer(token), ...SPOOFED]);
      const seen = lastSeen(s).headers;
      assert.deepEqual(
        [seen['x-forwarded-for'], seen['x-forwarded-host'], seen['x-forwarded-proto'], seen['x-real-ip']],
        ['203.0.113.9, 127.0.0.1', 'admin.internal', 'https', '203.0.113.9'],
      );
      assert.ok(seen.forwarded!.startsWith('for=203.0.113.9;host=admin.internal;proto=https, for=127.0.0.1'));
    },
  },
  {
    request: 'regression: other X-Forwarded-* headers, CDN client-address headers and X_Forwarded_For (underscore) from an untrusted caller passed through',
    expect: 'none reaches the upstream',
    async check(s) {
      const { token } = await s.person();
      const extra: [string, string][] = [
        ['X_Forwarded_For', '6.6.6.6'],
        ['X-Forwarded-Ssl', 'on'],
        ['X-Forwarded-Scheme', 'https'],
        ['X-Forwarded-Server', 'evil'],
        ['X-Forwarded-Client-Cert', 'By=spiffe://x;URI=spiffe://evil/admin'],
        ['X-Forwarded-Uri', '/admin'],
        ['X-Client-IP', '6.6.6.6'],
        ['True-Client-IP', '6.6.6.6'],
      ];
      await get(gatewayOf(s), '/api/x', [bearer(token), ...extra]);
      const seen = lastSeen(s);
      for (const [name] of extra) assert.equal(seen.headers[name.toLowerCase()], undefined, name);
      assert.ok(!seen.rawHeaders.join('\n').includes('6.6.6.6') && !seen.rawHeaders.join('\n').includes('evil'));
    },
  },
  ...(
    [
      ['regression: Host: a,for=6.6.6.6;host=admin.internal wrote a second element into Forwarded', 'a,for=6.6.6.6;host=admin.internal'],
      ['regression: Host: a;proto=https wrote a parameter into Forwarded', 'a;proto=https'],
      ['regression: Host: secure.example.com.. (two trailing dots) missed the host rule', 'secure.example.com..'],
      ['Host: secure%2eexample.com (a percent-encoded host)', 'secure%2eexample.com'],
    ] as [string, string][]
  ).map(
    ([request, host]): SecurityRow => ({
      request,
      expect: '400 GATEWAY_BAD_HOST; nothing forwarded',
      async check(s) {
        const { token } = await s.person();
        await refused(s, () => sendRaw(gatewayOf(s), head('GET', '/open/x', [['Host', host], bearer(token)])), 400, 'GATEWAY_BAD_HOST');
      },
    }),
  ),
  {
    request: 'GET /open/x with X-Original-URL: /api/x and X-Rewrite-URL: /api/x',
    expect: 'forwarded to /open/x without either header (no framework can re-route it)',
    async check(s) {
      const { token } = await s.person();
      const overrides: [string, string][] = [
        ['X-Original-URL', '/api/x'],
        ['X-Rewrite-URL', '/api/x'],
        ['X-Original-URI', '/api/x'],
        ['X-Envoy-Original-Path', '/api/x'],
      ];
      await get(s.trusting.url, '/open/x', [bearer(token), ...overrides]);
      const seen = lastSeen(s);
      assert.equal(seen.url, '/open/x');
      for (const [name] of overrides) assert.equal(seen.headers[name.toLowerCase()], undefined, name);
    },
  },
  {
    request: 'Authorization: "Bearer " (the scheme and nothing after it)',
    expect: '401 GATEWAY_SUBJECT_MISSING with WWW-Authenticate: Bearer; the token endpoint not called',
    async check(s) {
      const response = await refused(s, () => get(gatewayOf(s), '/api/x', [['Authorization', 'Bearer ']]), 401, 'GATEWAY_SUBJECT_MISSING');
      assert.equal(response.headers['www-authenticate'], 'Bearer');
    },
  },
  ...(
    [
      ['Authorization: Bearer with a space inside the token', ['Authorization', 'Bearer abc def']],
      ['Authorization: Bearer with a non-ASCII byte in the token', ['Authorization', 'Bearer abc\xe9def']],
      ['Authorization: Basic credentials where a bearer token belongs', ['Authorization', 'Basic dXNlcjpwYXNz']],
      ['Authorization: Bearer with a quote and a comma', ['Authorization', 'Bearer "abc",def']],
    ] as [string, [string, string]][]
  ).map(
    ([request, header]): SecurityRow => ({
      request,
      expect: '401 GATEWAY_SUBJECT_MALFORMED with WWW-Authenticate: Bearer error="invalid_token"; the token endpoint not called',
      async check(s) {
        const response = await refused(s, () => get(gatewayOf(s), '/api/x', [header]), 401, 'GATEWAY_SUBJECT_MALFORMED');
        assert.match(response.headers['www-authenticate']!, /^Bearer error="invalid_token"/);
      },
    }),
  ),
  {
    request: 'a session cookie whose value is not a b64token (session=a,b)',
    expect: '401 GATEWAY_SUBJECT_MALFORMED; the token endpoint not called',
    async check(s) {
      await refused(s, () => get(s.gateways['cookie, on except /open/*'].url, '/api/x', [['Cookie', 'session=a,b']]), 401, 'GATEWAY_SUBJECT_MALFORMED');
    },
  },
  {
    request: 'a well-formed bearer token the service does not know (a JWT signed by nobody it trusts)',
    expect: '502 GATEWAY_SUBJECT_REFUSED "refused the subject token (invalid_request)"; nothing forwarded',
    async check(s) {
      const response = await refused(
        s,
        () => get(gatewayOf(s), '/api/x', [bearer('eyJhbGciOiJFUzI1NiIsImtpZCI6Im5vIn0.eyJzdWIiOiJwZXJfeCJ9.c2ln')]),
        502,
        'GATEWAY_SUBJECT_REFUSED',
        true,
      );
      assert.ok(response.body.includes('refused the subject token (invalid_request)'), response.body);
    },
  },
  {
    request: 'headers sent slower than headers_timeout (300 ms), one line at a time',
    expect: '408 GATEWAY_REQUEST_TIMEOUT and the connection closed; nothing forwarded',
    async check(s) {
      const forwarded = s.upstream.requests.length;
      const { port } = new URL(s.limited.url);
      const answer = await new Promise<string>((resolve) => {
        const socket = connect(Number(port), '127.0.0.1');
        let text = '';
        socket.on('data', (chunk) => (text += chunk));
        socket.on('close', () => resolve(text));
        socket.write('GET /api/x HTTP/1.1\r\nHost: a\r\n');
        void sleep(150).then(() => socket.writable && socket.write('X-Slow: 1\r\n'));
      });
      assert.match(answer, /^HTTP\/1\.1 408/);
      assert.ok(answer.includes('GATEWAY_REQUEST_TIMEOUT'), answer);
      assert.equal(s.upstream.requests.length, forwarded);
    },
  },
  {
    request: '21 header fields where max_headers is 20',
    expect: '431 GATEWAY_HEADERS_TOO_LARGE; nothing forwarded',
    async check(s) {
      const many = Array.from({ length: 19 }, (_, i): [string, string] => [`X-H${i}`, 'v']);
      const response = await refused(s, () => get(s.limited.url, '/api/x', [bearer('abc'), ...many]), 431, 'GATEWAY_HEADERS_TOO_LARGE');
      assert.match(response.headers['x-request-id'] ?? '', /^[0-9a-f-]{36}$/, 'a parser refusal carries a request id too');
    },
  },
  {
    request: 'POST with Content-Length: 2048 where max_body_size is 1k',
    expect: '413 GATEWAY_BODY_TOO_LARGE before the token endpoint is asked; nothing forwarded',
    async check(s) {
      const { token } = await s.person();
      const url = s.limited.url;
      await refused(
        s,
        () => sendRaw(url, head('POST', '/api/x', [['Host', hostOf(url)], bearer(token), ['Content-Length', '2048']]), 'x'.repeat(2048)),
        413,
        'GATEWAY_BODY_TOO_LARGE',
      );
    },
  },
  {
    request: 'a chunked POST of 2048 bytes where max_body_size is 1k',
    expect: '413 GATEWAY_BODY_TOO_LARGE; the upstream never receives a complete request',
    async check(s) {
      const { token } = await s.person();
      const url = s.limited.url;
      const body = `800\r\n${'x'.repeat(2048)}\r\n0\r\n\r\n`;
      await refused(
        s,
        () => sendRaw(url, head('POST', '/api/x', [['Host', hostOf(url)], bearer(token), ['Transfer-Encoding', 'chunked']]), body),
        413,
        'GATEWAY_BODY_TOO_LARGE',
        true,
      );
    },
  },
  {
    request: 'regression: an upload that stalls after 3 of its 100 bytes held an upstream connection for 5 minutes (256 of them emptied the pool)',
    expect: '408 GATEWAY_BODY_TIMEOUT after body_timeout (300 ms); the upstream connection freed, the upstream never gets a complete request',
    async check(s) {
      const url = s.limited.url;
      const completed = s.upstream.requests.length;
      const started = Date.now();
      const response = await sendRaw(
        url,
        head('POST', '/open/slow', [
          ['Host', hostOf(url)],
          ['Content-Length', '100'],
        ]),
        'abc',
      );
      assert.equal(response.status, 408, response.body);
      assert.ok(response.body.includes('GATEWAY_BODY_TIMEOUT'), response.body);
      assert.ok(Date.now() - started < 5_000, "cut after body_timeout, not after Node's request timeout");
      assert.equal(s.upstream.requests.length, completed);
    },
  },
  {
    request:
      'regression: Cookie: session=T; Session=T; SESSION=T; sessi%6Fn=T; theme=dark, session=T left copies of the subject token for lenient cookie parsers',
    expect: 'every copy stripped; the other cookies (lang=en) kept',
    async check(s) {
      const { token } = await s.person();
      const url = s.gateways['cookie, on except /open/*'].url;
      const response = await get(url, '/api/x', [
        ['Cookie', `session=${token}; Session=${token}; SESSION=${token}; sessi%6Fn=${token}; theme=dark, session=${token}; lang=en`],
      ]);
      assert.equal(response.status, 200, response.body);
      const seen = lastSeen(s);
      assert.ok(!seen.rawHeaders.join('\n').includes(token), 'no copy of the token reached the upstream');
      assert.equal(seen.headers.cookie, 'lang=en');
    },
  },
  {
    request: 'a person deleted at the service while their delegated token is cached at the gateway',
    expect: 'served from the cache at most cache_max_ttl (60 s, clock frozen); after it, 502 GATEWAY_SUBJECT_REFUSED',
    async check(s) {
      const { id, token } = await s.person();
      assert.equal((await get(gatewayOf(s), '/api/x', [bearer(token)])).status, 200);
      assert.equal((await s.t.call('DELETE', `/persons/${id}`, { as: s.org })).status, 204);
      s.clock.now += 59_000;
      assert.equal((await get(gatewayOf(s), '/api/x', [bearer(token)])).status, 200, 'within the documented bound the cached token may still serve');
      s.clock.now += 2_000;
      await refused(s, () => get(gatewayOf(s), '/api/x', [bearer(token)]), 502, 'GATEWAY_SUBJECT_REFUSED', true);
    },
  },
];
