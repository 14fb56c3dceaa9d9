import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { backends } from '../helpers/backends.ts';
import { claims } from '../helpers/oauth.ts';
import { ARRANGEMENTS, type Arrangement, head, hostOf, type SecurityStack, sendRaw, startSecurityStack } from './harness.ts';

/**
 * Request-targets that try to reach /api (where the plugin runs) through a rule for /open
 * (where it does not), or the other way round. Each is either refused with 400 and nothing
 * forwarded, or forwarded with exactly the normalised path, which rules matched too.
 * `HOST` stands for the gateway's own host:port. A new trick is a new row.
 */
const TARGETS: [target: string, outcome: 400 | string][] = [
  ['/api/x', '/api/x'],
  ['/open/x', '/open/x'],
  ['/open/../api/x', '/api/x'],
  ['/open/./../api/x', '/api/x'],
  ['/open/x/../../api/y', '/api/y'],
  ['/./api/x', '/api/x'],
  ['/api/x/..', '/api/'],
  ['/open/%2e%2e/api/x', '/api/x'],
  ['/open/%2E%2E/api/x', '/api/x'],
  ['/open/%2e%2E/api/x', '/api/x'],
  ['/open/.%2e/api/x', '/api/x'],
  ['/open/%2e./api/x', '/api/x'],
  ['/open/%2e/../api/x', '/api/x'],
  ['/%61pi/x', '/api/x'],
  ['/ap%69/%78', '/api/x'],
  ['//api/x', '/api/x'],
  ['/api//x', '/api/x'],
  ['/open//../api/x', '/api/x'],
  ['/open///..//api/x', '/api/x'],
  ['/open/%252e%252e/api/x', '/open/%252e%252e/api/x'],
  ['/api/x?next=/../open', '/api/x?next=/../open'],
  ['/open/x?/../../api/x', '/open/x?/../../api/x'],
  ['/open/..%2fapi/x', 400],
  ['/open/..%2Fapi/x', 400],
  ['/open%2f..%2fapi/x', 400],
  ['/open/%2e%2e%2fapi/x', 400],
  ['/open/..%5capi/x', 400],
  ['/open/..%5Capi/x', 400],
  ['/open/..\\api/x', 400],
  ['/open\\..\\api\\x', 400],
  ['/../api/x', 400],
  ['/open/../../api/x', 400],
  ['/%2e%2e/api/x', 400],
  ['/open/..;/api/x', 400],
  ['/open/.;/../api/x', 400],
  ['/open/x%00/../../api/x', 400],
  ['/api/x%0d%0aX-Injected:%201', 400],
  ['/open/x%zz', 400],
  ['/api;/x', 400],
  ['/api;jsessionid=1/x', 400],
  ['/ap%69;/x', 400],
  ['http://HOST/api;/x', 400],
  ['/API/x', '/API/x'],
  ['/Api/x', '/Api/x'],
  ['/%41PI/x', '/API/x'],
  ['/open/x#/../../api/x', 400],
  ['*', 400],
  ['http://HOST/open/../api/x', '/api/x'],
  ['HTTP://HOST/open/%2e%2e/api/x', '/api/x'],
  ['http://HOST/api/x', '/api/x'],
  ['http://evil.example/api/x', 400],
  ['http://evil.example/open/../api/x', 400],
  ['http://user@HOST/api/x', 400],
];

const cookieArrangement = (arrangement: Arrangement) => arrangement.startsWith('cookie');

for (const backend of backends()) {
  describe(`Gateway request-targets, sent raw, on ${backend.name}`, () => {
    let stack: SecurityStack;
    let token: string;
    before(async () => {
      stack = await startSecurityStack(backend);
      token = (await stack.person()).token;
    });
    after(() => stack.close());

    for (const arrangement of ARRANGEMENTS) {
      for (const [rawTarget, outcome] of TARGETS) {
        it(`${arrangement}: ${rawTarget} → ${outcome === 400 ? '400, nothing forwarded' : `forwarded as ${outcome}`}`, async () => {
          const gateway = stack.gateways[arrangement];
          const target = rawTarget.replace('HOST', hostOf(gateway.url));
          const credential: [string, string] = cookieArrangement(arrangement)
            ? ['Cookie', `theme=dark; session=${token}`]
            : ['Authorization', `Bearer ${token}`];
          const before = stack.upstream.requests.length;
          const response = await sendRaw(gateway.url, head('GET', target, [['Host', hostOf(gateway.url)], credential]));
          if (outcome === 400) {
            assert.equal(response.status, 400, response.body);
            assert.equal(stack.upstream.requests.length, before, 'nothing was forwarded');
            return;
          }
          assert.equal(response.status, 200, response.body);
          const seen = stack.upstream.requests.at(-1)!;
          assert.equal(seen.url, outcome, 'the upstream got the path the rules matched');
          assert.equal(seen.headers.host, hostOf(stack.upstream.url), 'the upstream Host comes from the route');
          // Upstreams that ignore case (Express, ASP.NET Core, IIS) serve /API/x as /api/x.
          if (outcome.toLowerCase().startsWith('/api/')) {
            assert.ok(!seen.rawHeaders.join('\n').includes(token), "the caller's token did not reach a protected path");
            assert.equal(claims(seen.headers.authorization!.slice('Bearer '.length)).act.sub, stack.client.id, 'the delegated token went instead');
          }
        });
      }
    }

    it('matches host rules case-insensitively, without a trailing dot or the port: SECURE.Example.COM.:80 gets the plugin', async () => {
      for (const arrangement of ['header, off except /api/*', 'cookie, off except /api/*'] as const) {
        const credential: [string, string] = cookieArrangement(arrangement) ? ['Cookie', `session=${token}`] : ['Authorization', `Bearer ${token}`];
        const response = await sendRaw(stack.gateways[arrangement].url, head('GET', '/open/x', [['Host', 'SECURE.Example.COM.:80'], credential]));
        assert.equal(response.status, 200, response.body);
        assert.ok(!stack.upstream.requests.at(-1)!.rawHeaders.join('\n').includes(token));
      }
    });

    for (const [name, headers] of [
      [
        'two Host headers',
        [
          ['Host', 'secure.example.com'],
          ['Host', 'other.example'],
        ],
      ],
      ['a Host that is not host[:port]', [['Host', 'a/b']]],
      ['an absolute-form target with another Host', [['Host', 'secure.example.com']]],
    ] as [string, [string, string][]][]) {
      it(`refuses ${name} with 400 and forwards nothing`, async () => {
        const before = stack.upstream.requests.length;
        const target = name.startsWith('an absolute') ? 'http://open.example/api/x' : '/api/x';
        const response = await sendRaw(
          stack.gateways['header, off except /api/*'].url,
          head('GET', target, [...headers, ['Authorization', `Bearer ${token}`]]),
        );
        assert.equal(response.status, 400, response.body);
        assert.equal(stack.upstream.requests.length, before);
      });
    }
  });
}
