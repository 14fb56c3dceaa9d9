import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { claims } from '../../helpers/oauth.ts';
import { type Arrangement, exchangeRaw, type FuzzStack, gatewayCode, guarded, startFuzzStack } from './stack.ts';

/**
 * Header blocks sent as raw bytes to a running gateway: the caller's token in every place the
 * gateway takes it from or off, duplicates, hop-by-hop tricks, forwarding claims, control
 * characters, odd Host values, oversized blocks. `TOKEN` stands for the person's real token,
 * `SELF` for the gateway's host:port.
 */
type Line = [name: string, value: string];
/** Header blocks do not depend on path policies: the lenient gateway is request-targets.test.ts's. */
type Tested = Exclude<Arrangement, 'lenient'>;

/** Where the subject is read from, and spellings a lenient reader might take for it. */
const SUBJECT_PLACES: Record<Tested, Line[]> = {
  header: [
    ['Authorization', 'Bearer TOKEN'],
    ['authorization', 'bearer TOKEN'],
    ['AUTHORIZATION', 'BEARER   TOKEN'],
    ['Authorization', 'TOKEN'],
    ['Authorization', 'Bearer\tTOKEN '],
  ],
  cookie: [
    ['Cookie', 'session=TOKEN'],
    ['Cookie', 'theme=dark; session=TOKEN'],
    ['cookie', 'SESSION=TOKEN'],
    ['Cookie', 'sessi%6Fn=TOKEN; a=b'],
    ['Cookie', 'a=1,session=TOKEN'],
    ['Cookie', 'other=TOKEN'],
    ['Cookie', ' session = TOKEN '],
    ['Authorization', 'Bearer TOKEN'],
  ],
};
/** Headers the gateway drops from every request, or never lets a caller set (docs/gateway.md). */
const DROPPED: Line[] = [
  ['Proxy-Authorization', 'Bearer TOKEN'],
  ['X-Forwarded-For', 'TOKEN'],
  ['X-Forwarded-Host', 'TOKEN.example'],
  ['Forwarded', 'for=TOKEN'],
  ['X-Real-IP', 'TOKEN'],
  ['True-Client-IP', 'TOKEN'],
  ['X_Token', 'TOKEN'],
  ['X-Original-URL', '/api/x?t=TOKEN'],
];
const GARBAGE_CREDENTIALS: Line[] = [
  ['Authorization', 'Bearer abc'],
  ['Authorization', 'Bearer TOKENx'],
  ['Cookie', 'session=abc'],
  ['Authorization', 'Bearer'],
  ['Authorization', 'Basic dXNlcjpwdw=='],
  ['Authorization', 'Bearer "TOKEN"'],
  ['Cookie', 'session="abc"'],
  ['Cookie', 'session='],
  ['Authorization', `Bearer ${'a'.repeat(17_000)}`],
];
const STRUCTURE: Line[] = [
  ['Host', 'SELF'],
  ['host', 'EVIL.example'],
  ['Host', 'a,for=x'],
  ['Host', ''],
  ['Connection', 'authorization'],
  ['Connection', 'cookie'],
  ['Connection', 'keep-alive, x-fuzz-extra'],
  ['Connection', 'host'],
  ['Keep-Alive', 'timeout=5'],
  ['TE', 'trailers'],
  ['Upgrade', 'websocket'],
  ['Transfer-Encoding', 'gzip'],
  ['Transfer-Encoding', 'chunked'],
  ['Content-Length', '0'],
  ['Content-Length', 'abc'],
  ['Content-Length', '1, 1'],
  ['Expect', '100-continue'],
  ['Expect', 'something-else'],
  ['X-Request-Id', 'caller-id-42'],
  ['X-Request-Id', 'not sane'],
  ['X-Request-Id', 'x'.repeat(129)],
  ['X-Fuzz-Extra', 'kept unless Connection names it'],
];
const junkName = fc.oneof(fc.stringMatching(/^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,10}$/), fc.constantFrom('X A', 'Ä', '', 'X-A ', '(x)'));
const junkValue = fc.string({ unit: fc.constantFrom('a', '0', ' ', '\t', ',', ';', '"', '\x00', '\x01', '\x7f', '\x80', '\xff', '\r', '='), maxLength: 8 });
const GARBAGE_B64 = /^Bearer (abc|TOKENx)$|^session=abc$/;

const block = (arrangement: Tested) =>
  fc.record({
    method: fc.oneof({ weight: 12, arbitrary: fc.constant('GET') }, { weight: 3, arbitrary: fc.constantFrom('DELETE', 'OPTIONS', 'CONNECT', 'get', 'FOO') }),
    path: fc.constantFrom('/api/x', '/open/x', '/API/x', '/api', '/open/../api/x', '/x'),
    host: fc.constantFrom(true, true, true, true, true, false),
    lines: fc.array(
      fc.oneof(
        { weight: 8, arbitrary: fc.constantFrom(...SUBJECT_PLACES[arrangement]) },
        { weight: 4, arbitrary: fc.constantFrom(...DROPPED) },
        { weight: 1, arbitrary: fc.constantFrom(...GARBAGE_CREDENTIALS) },
        { weight: 3, arbitrary: fc.constantFrom(...STRUCTURE) },
        { weight: 1, arbitrary: fc.tuple(junkName, junkValue) },
      ),
      { maxLength: 5 },
    ),
    many: fc.oneof({ weight: 15, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.constant(101) }),
  });
type Block = { method: string; path: string; host: boolean; lines: Line[]; many: number };

const SANE_ID = /^[\x21-\x7e]{1,128}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

async function sendAndCheck(stack: FuzzStack, arrangement: Tested, b: Block, run: string, forwarded: Set<string>): Promise<void> {
  const gateway = stack.gateways[arrangement];
  const self = new URL(gateway.url).host;
  const lines: Line[] = [...(b.host ? [['Host', 'SELF'] as Line] : []), ...b.lines, ...Array.from({ length: b.many }, (_, i): Line => [`X-N-${i}`, 'v'])];
  const filled = lines.map(([n, v]): Line => [n, v.replace('TOKEN', stack.token).replace('SELF', self)]);
  const chunked = filled.some(([n, v]) => n.toLowerCase() === 'transfer-encoding' && v === 'chunked');
  const head = `${b.method} ${b.path} HTTP/1.1\r\n${filled.map(([n, v]) => `${n}: ${v}\r\n`).join('')}X-Fuzz-Run: ${run}\r\nConnection: close\r\n\r\n`;
  const answer = await exchangeRaw(gateway.url, Buffer.from(`${head}${chunked ? '0\r\n\r\n' : ''}`, 'latin1'));
  const id = answer.headers['x-request-id'] ?? '';
  assert.ok(SANE_ID.test(id), `X-Request-Id ${id}`);
  const seen = stack.upstream.requests.filter((r) => r.headers['x-fuzz-run'] === run);

  if (answer.headers['x-upstream'] !== 'yes') {
    const code = gatewayCode(answer);
    assert.ok(answer.status < 500 || (code === 'GATEWAY_SUBJECT_REFUSED' && lines.some(([, v]) => GARBAGE_B64.test(v))), `${answer.status} ${answer.body}`);
    if (code.startsWith('GATEWAY_SUBJECT_')) assert.ok(guarded(arrangement, new URL(b.path, 'http://h').pathname), `${code} where no plugin runs`);
    assert.deepEqual(seen, [], 'a refused request reached the upstream');
    return;
  }
  forwarded.add(run);
  assert.equal(answer.status, 200, answer.body);
  assert.equal(seen.length, 1, 'the upstream received the request once');
  const upstream = seen[0]!;
  assert.equal(upstream.headers['x-request-id'], id, 'the upstream saw the id the caller got');
  const sentIds = filled.filter(([n]) => n.toLowerCase() === 'x-request-id').map(([, v]) => v.trim());
  if (sentIds.length > 0 && SANE_ID.test(sentIds.join(', '))) assert.equal(id, sentIds.join(', '));
  else assert.match(id, UUID);
  assert.equal(upstream.headers['x-forwarded-for'], '127.0.0.1');
  const path = upstream.url.split('?')[0]!;
  if (guarded(arrangement, path)) {
    assert.ok(!`${upstream.url}\n${upstream.rawHeaders.join('\n')}`.includes(stack.token), `the caller's token reached the guarded ${path}`);
    const delegated = claims(String(upstream.headers.authorization).replace(/^Bearer /, ''));
    assert.deepEqual([delegated.sub, delegated.act?.sub], [stack.personId, stack.client.id], 'a delegated token went instead');
  } else {
    // Unguarded, the request goes on as sent: the token only where the caller put it for the subject.
    const carriers = new Set(arrangement === 'header' ? ['authorization'] : ['authorization', 'cookie']);
    for (let i = 0; i < upstream.rawHeaders.length; i += 2)
      if (upstream.rawHeaders[i + 1]!.includes(stack.token))
        assert.ok(carriers.has(upstream.rawHeaders[i]!.toLowerCase()), `the token went on in ${upstream.rawHeaders[i]}`);
  }
}

describe('Fuzz: header blocks sent raw to a running gateway', () => {
  let stack: FuzzStack;
  let runs = 0;
  const forwarded = new Set<string>();
  before(async () => {
    stack = await startFuzzStack();
  });
  after(() => stack.close());

  for (const arrangement of ['header', 'cookie'] as const) {
    it(`${arrangement}: answers every block in time with a catalogued code or the upstream's answer, and never lets the token through`, async () => {
      await fc.assert(
        fc.asyncProperty(block(arrangement), (b) => sendAndCheck(stack, arrangement, b, String(++runs), forwarded)),
        { numRuns: 400 },
      );
    });
  }

  const regressions: [name: string, arrangement: Tested, block: Block][] = [
    // Found by this file. Node dropped the connection unanswered (no 'connect' listener).
    ['CONNECT is answered, not dropped', 'header', { method: 'CONNECT', path: '/api/x', host: true, lines: [], many: 0 }],
    // Node answered 417 itself, without envelope or X-Request-Id.
    [
      'an unknown Expect is ignored, not a bare 417',
      'header',
      {
        method: 'GET',
        path: '/api/x',
        host: true,
        lines: [
          ['Authorization', 'Bearer TOKEN'],
          ['Expect', 'something-else'],
        ],
        many: 0,
      },
    ],
    // Node's parser refused it after handing the request over: the caller got 400, the upstream the request.
    // (Where no plugin awaits anything, the request is dispatched before the parser's error.)
    [
      'a Transfer-Encoding without chunked last reaches nobody',
      'header',
      { method: 'GET', path: '/open/x', host: true, lines: [['Transfer-Encoding', 'gzip']], many: 0 },
    ],
    [
      'a Transfer-Encoding without chunked last reaches nobody, guarded',
      'cookie',
      {
        method: 'GET',
        path: '/api/x',
        host: true,
        lines: [
          ['Cookie', 'theme=dark; session=TOKEN'],
          ['Transfer-Encoding', 'gzip'],
        ],
        many: 0,
      },
    ],
    ['an HTTP/1.1 request without Host is refused in the envelope', 'header', { method: 'GET', path: '/open/x', host: false, lines: [], many: 0 }],
  ];
  for (const [name, arrangement, b] of regressions) {
    it(`regression: ${name}`, async () => {
      const run = `regression-${++runs}`;
      await sendAndCheck(stack, arrangement, b, run, forwarded);
      await new Promise((resolve) => setTimeout(resolve, 100));
      if (!forwarded.has(run))
        assert.deepEqual(
          stack.upstream.requests.filter((r) => r.headers['x-fuzz-run'] === run),
          [],
          'it reached the upstream late',
        );
    });
  }

  it('forwarded nothing, even late, for any request it refused', async () => {
    await new Promise((resolve) => setTimeout(resolve, 200));
    const late = stack.upstream.requests.map((r) => String(r.headers['x-fuzz-run'])).filter((run) => !forwarded.has(run));
    assert.deepEqual(late, [], 'requests the gateway refused reached the upstream');
    assert.ok(forwarded.size > 60, `only ${forwarded.size} of ${runs} blocks were forwarded: the generator lost its way`);
  });
});
