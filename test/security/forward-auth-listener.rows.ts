import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { listenerDefaults } from '../../src/config/defaults.ts';
import { exchange, hold } from '../runtime/listener-sockets.ts';
import { askCheck, checkDecision, codeOf, credentialFor } from './forward-auth-checks.ts';
import type { SecurityStack } from './harness.ts';
import type { SecurityRow } from './rows.ts';

const CAP = listenerDefaults.maxConnectionsPerAddress;
/** A whole check for /open/x, as `exchange` writes it; X-Forwarded-* of the caller's choosing after. */
const openCheck = (extra = '') => `GET / HTTP/1.1\r\nHost: tessera.test\r\nX-Forwarded-Uri: /open/x\r\n${extra}Connection: close\r\n\r\n`;

/** Holds `count` connections from 127.0.0.9 to the forward-auth port of `url`, then runs `then`. */
async function holding(url: string, count: number, then: () => Promise<void>): Promise<void> {
  const held: Socket[] = [];
  try {
    for (let i = 0; i < count; i++) held.push(await hold(url, '127.0.0.9'));
    await then();
  } finally {
    for (const socket of held) socket.destroy();
  }
}

/** A check for /open/x whose chunked body never ends: the answer and the close it gets, or the 10 s bound. */
function endlessBody(url: string): Promise<{ text: string; closedAfterMs: number }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    const started = performance.now();
    let text = '';
    const chunk = `400\r\n${'a'.repeat(1024)}\r\n`;
    const feeding = setInterval(() => socket.writable && socket.write(chunk), 5);
    const limit = setTimeout(() => socket.destroy(), 10_000);
    socket.setEncoding('latin1');
    socket.on('data', (data: string) => (text += data));
    socket.on('error', () => {});
    socket.on('close', () => {
      clearInterval(feeding);
      clearTimeout(limit);
      resolve({ text, closedAfterMs: Math.round(performance.now() - started) });
    });
    socket.write('POST / HTTP/1.1\r\nHost: tessera.test\r\nX-Forwarded-Uri: /open/x\r\nTransfer-Encoding: chunked\r\n\r\n');
  });
}

export const forwardAuthListenerRows: SecurityRow[] = [
  {
    request: 'a check from 127.0.0.9 where forward_auth.trusted_proxies lists 127.0.0.1 only, claiming 127.0.0.1 in X-Forwarded-For, X-Real-IP and Forwarded',
    expect: '403 GATEWAY_FORWARD_AUTH_FORBIDDEN (the socket address decides); the listed proxy still gets 200',
    async check(s) {
      const url = s.listed.forwardAuthUrl!;
      const spoofed = openCheck('X-Forwarded-For: 127.0.0.1\r\nX-Real-IP: 127.0.0.1\r\nForwarded: for=127.0.0.1\r\n');
      const refused = await exchange(url, '127.0.0.9', spoofed);
      assert.match(refused.text, /^HTTP\/1\.1 403 /, refused.text);
      assert.ok(refused.text.includes('GATEWAY_FORWARD_AUTH_FORBIDDEN'));
      assert.match((await exchange(url, '127.0.0.1', openCheck())).text, /^HTTP\/1\.1 200 /);
    },
  },
  {
    request: `${CAP} held connections from an address trusted_proxies does not list, then one more`,
    expect: '503 for the one more, before anything is read; the listed proxy is still answered',
    check: (s) =>
      holding(s.listed.forwardAuthUrl!, CAP, async () => {
        assert.match((await exchange(s.listed.forwardAuthUrl!, '127.0.0.9', openCheck())).text, /^HTTP\/1\.1 503 /);
        assert.match((await exchange(s.listed.forwardAuthUrl!, '127.0.0.1', openCheck())).text, /^HTTP\/1\.1 200 /);
      }),
  },
  {
    request: `${CAP} held connections from one loopback address to a loopback forward-auth port (no trusted_proxies), then one more`,
    expect:
      'answered (200): only the proxy reaches a loopback port and carries every client on its connections, so loopback is exempt from the per-address cap, as listed proxies are; the total cap still holds',
    check: (s) =>
      holding(s.gateways['header, on except /open/*'].forwardAuthUrl!, CAP, async () => {
        const more = await exchange(s.gateways['header, on except /open/*'].forwardAuthUrl!, '127.0.0.9', openCheck());
        assert.match(more.text, /^HTTP\/1\.1 200 /, more.text);
      }),
  },
  {
    request: 'a check whose headers trickle in slower than headers_timeout (300ms)',
    expect: '408 GATEWAY_REQUEST_TIMEOUT and the connection closed within a second, as on the proxy port',
    async check(s) {
      const slow = await exchange(s.limited.forwardAuthUrl!, '127.0.0.1', 'GET / HTTP/1.1\r\nHost: tessera.test\r\n', { trickle: 'X-A: b\r\n', everyMs: 100 });
      assert.match(slow.text, /^HTTP\/1\.1 408 /, slow.text);
      assert.ok(slow.text.includes('GATEWAY_REQUEST_TIMEOUT'));
      assert.ok(slow.closedAfterMs < 1_500, `closed after ${slow.closedAfterMs} ms`);
    },
  },
  {
    request: 'a check with a chunked body that never ends (it was drained until request_timeout, 30 s)',
    expect: '200 at once with Connection: close, and the connection closed within 2 s; other checks answered meanwhile',
    async check(s) {
      const url = s.limited.forwardAuthUrl!;
      const [endless, other] = await Promise.all([endlessBody(url), askCheck(s.limited, [['X-Forwarded-Uri', '/open/x']])]);
      assert.match(endless.text, /^HTTP\/1\.1 200 /, endless.text);
      assert.match(endless.text, /\r\nconnection: close\r\n/i);
      assert.ok(endless.closedAfterMs < 2_000, `closed after ${endless.closedAfterMs} ms`);
      assert.equal(other.status, 200);
    },
  },
  {
    request: 'a check declaring a 100 MB body with Expect: 100-continue where max_body_size is 1k',
    expect: '413 GATEWAY_BODY_TOO_LARGE without a byte of the body read',
    async check(s) {
      const headers: [string, string][] = [
        ['X-Forwarded-Uri', '/open/x'],
        ['Content-Length', '100000000'],
        ['Expect', '100-continue'],
      ];
      const answer = await askCheck(s.limited, headers, 'POST');
      assert.equal(codeOf(answer), 'GATEWAY_BODY_TOO_LARGE', answer.body);
    },
  },
  {
    request: `${21} header fields where max_headers is 20, X-Forwarded-Uri: /api/x the last`,
    expect: '431 GATEWAY_HEADERS_TOO_LARGE: never decided without the fields past the limit (as the check for "/")',
    async check(s) {
      const many = Array.from({ length: 20 }, (_, i): [string, string] => [`X-Filler-${i}`, 'x']);
      const answer = await askCheck(s.limited, [...many, ['X-Forwarded-Uri', '/api/x']]);
      assert.equal(answer.status, 431, answer.body);
      assert.equal(codeOf(answer), 'GATEWAY_HEADERS_TOO_LARGE');
    },
  },
  {
    request: 'two Authorization headers with different tokens in one check',
    expect: '400 GATEWAY_DUPLICATE_AUTHORIZATION; the token endpoint not asked',
    async check(s) {
      const [a, b] = [await s.person(), await s.person()];
      const asked = s.relay.count;
      const check = await checkDecision(s, s.gateways['header, on except /open/*'], a.token, [
        ['X-Forwarded-Uri', '/api/x'],
        ['Authorization', `Bearer ${a.token}`],
        ['Authorization', `Bearer ${b.token}`],
      ]);
      assert.equal(codeOf(check.response), 'GATEWAY_DUPLICATE_AUTHORIZATION');
      assert.equal(s.relay.count, asked);
    },
  },
  {
    request: 'the cookie subject in the second of two Cookie headers',
    expect: "200 with the delegated token; the answer's Cookie keeps the other cookie, not the token",
    async check(s) {
      const { token } = await s.person();
      const headers: [string, string][] = [
        ['X-Forwarded-Uri', '/api/x'],
        ['Cookie', 'theme=dark'],
        ['Cookie', `session=${token}`],
      ];
      const check = await checkDecision(s, s.gateways['cookie, on except /open/*'], token, headers);
      assert.equal(check.exchanged, true, check.response.body);
      assert.equal(check.response.headers.cookie, 'theme=dark');
    },
  },
  ...(
    [
      ['a second session cookie in another Cookie header', (other: string) => [['Cookie', `session=${other}`]]],
      ['Session= (another case) beside session=', (other: string) => [['Cookie', `Session=${other}`]]],
      ['%73ession= (percent-encoded name) beside session=', (other: string) => [['Cookie', `%73ession=${other}`]]],
    ] as [string, (other: string) => [string, string][]][]
  ).map(([trick, extra]) => ({
    request: `${trick}, each with another token (the documented nginx map strips only the first "session=": the other reached the upstream)`,
    expect: '401 GATEWAY_SUBJECT_MALFORMED; the token endpoint not asked, neither token in the answer',
    async check(s: SecurityStack) {
      const [a, b] = [await s.person(), await s.person()];
      const asked = s.relay.count;
      const headers: [string, string][] = [['X-Forwarded-Uri', '/api/x'], ['Cookie', `session=${a.token}`], ...extra(b.token)];
      const check = await checkDecision(s, s.gateways['cookie, on except /open/*'], a.token, headers);
      assert.equal(codeOf(check.response), 'GATEWAY_SUBJECT_MALFORMED', check.response.body);
      assert.ok(!JSON.stringify(check.response).includes(b.token));
      assert.equal(s.relay.count, asked, 'the token endpoint was not asked');
    },
  })),
  {
    request: 'a 200 check for the header subject, and one for the cookie subject when it is the only cookie (the answer named no Cookie)',
    expect: "Authorization: the delegated token over the caller's; Cookie answered empty, so a proxy copying it clears the caller's; never the caller's token",
    async check(s) {
      const { token } = await s.person();
      for (const arrangement of ['header, on except /open/*', 'cookie, on except /open/*'] as const) {
        const only: [string, string] = arrangement.startsWith('cookie') ? ['Cookie', `session=${token}`] : credentialFor(arrangement, token);
        const check = await checkDecision(s, s.gateways[arrangement], token, [['X-Forwarded-Uri', '/api/x'], only]);
        assert.equal(check.exchanged, true, check.response.body);
        if (arrangement.startsWith('cookie')) assert.equal(check.response.headers.cookie, '', 'the answer clears the Cookie');
      }
    },
  },
];
