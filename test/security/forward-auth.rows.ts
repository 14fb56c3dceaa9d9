import assert from 'node:assert/strict';
import { assertSameDecision, checkDecision, codeOf, credentialFor, proxyDecision } from './forward-auth-checks.ts';
import { ARRANGEMENTS, hostOf, type SecurityStack } from './harness.ts';
import type { SecurityRow } from './rows.ts';

/**
 * The forward-auth port believes the method, path and host its proxy describes, so each trick a
 * caller could put in them must be decided exactly as the proxy port decides the same request
 * (request-targets.test.ts pins the proxy port's own answers). `HOST` is the gateway's host:port.
 */
const TARGETS: [trick: string, target: string][] = [
  ['absolute-form naming another host', 'http://other.example/api/x'],
  ['absolute-form climbing from /open', 'http://HOST/open/../api/x'],
  ['authority-form', 'other.example:80'],
  ['asterisk-form', '*'],
  ['.. from /open', '/open/../api/x'],
  ['%2e%2e from /open', '/open/%2e%2e/api/x'],
  ['..%2f', '/open/..%2fapi/x'],
  ['%2f around ..', '/open%2f..%2fapi/x'],
  ['backslashes', '/open\\..\\api\\x'],
  ['//', '//api/x'],
  ['// before ..', '/open//../api/x'],
  ['; parameters', '/api;jsessionid=1/x'],
  ['..; (servlet dot-segment)', '/open/..;/api/x'],
  ['a fragment', '/open/x#/../../api/x'],
  ['%00', '/open/x%00/../../api/x'],
  ['%0d%0a', '/api/x%0d%0aX-Injected:%201'],
  ['a raw space', '/open/x /../../api/x'],
  ['a raw tab', '/open/x\t/../../api/x'],
  ['a raw control byte', '/open/x\u0001/../../api/x'],
  ['a raw non-ASCII byte', '/open/x\u00ff/../../api/x'],
  ['a query that looks like a path', '/open/x?/../../api/x'],
  ['upper case', '/API/x'],
  ['nothing', ''],
  ['over 16 KiB', `/api/${'a'.repeat(17_000)}`],
];

/** Sends `target` to the proxy port and as each proxy's check header, in every arrangement; the decisions must agree. */
async function decidedAlike(s: SecurityStack, rawTarget: string): Promise<void> {
  const { token } = await s.person();
  for (const arrangement of ARRANGEMENTS) {
    const gateway = s.gateways[arrangement];
    const host = hostOf(gateway.url);
    const target = rawTarget.replace('HOST', host);
    const credential = credentialFor(arrangement, token);
    const proxy = await proxyDecision(s, gateway, token, 'GET', target, [['Host', host], credential]);
    for (const header of ['X-Forwarded-Uri', 'X-Original-URI']) {
      const check = await checkDecision(s, gateway, token, [[header, target], ['X-Forwarded-Host', host], credential]);
      assertSameDecision(check, proxy, `${arrangement}, ${header}`);
    }
  }
}

/** The host rules (secure.example.com turns the plugin on) read X-Forwarded-Host as the proxy port reads Host. */
async function hostDecidedAlike(s: SecurityStack, hosts: string[], checkHost?: string): Promise<void> {
  const { token } = await s.person();
  for (const arrangement of ['header, off except /api/*', 'cookie, off except /api/*'] as const) {
    const gateway = s.gateways[arrangement];
    const credential = credentialFor(arrangement, token);
    const proxy = await proxyDecision(s, gateway, token, 'GET', '/open/x', [...hosts.map((h): [string, string] => ['Host', h]), credential]);
    const own: [string, string][] = checkHost === undefined ? [] : [['Host', checkHost]];
    const described = hosts.map((h): [string, string] => ['X-Forwarded-Host', h]);
    const check = await checkDecision(s, gateway, token, [...own, ['X-Forwarded-Uri', '/open/x'], ...described, credential]);
    assertSameDecision(check, proxy, arrangement);
  }
}

/** The method goes through the same parser rules as the proxy port's request line. */
async function methodDecidedAlike(s: SecurityStack, method: string): Promise<void> {
  const { token } = await s.person();
  const gateway = s.gateways['header, on except /open/*'];
  const credential = credentialFor('header, on except /open/*', token);
  const proxy = await proxyDecision(s, gateway, token, method, '/api/x', [['Host', hostOf(gateway.url)], credential]);
  for (const header of ['X-Forwarded-Method', 'X-Original-Method']) {
    const check = await checkDecision(s, gateway, token, [[header, method], ['X-Forwarded-Uri', '/api/x'], credential]);
    assertSameDecision(check, proxy, header);
  }
}

/** A refusal with this status and code, the token endpoint not asked. */
async function refusedCheck(s: SecurityStack, headers: (token: string) => [string, string][], status: number, code: string): Promise<void> {
  const { token } = await s.person();
  const asked = s.relay.count;
  const check = await checkDecision(s, s.gateways['header, on except /open/*'], token, headers(token));
  assert.equal(check.status, status, check.response.body);
  assert.equal(codeOf(check.response), code);
  assert.equal(s.relay.count, asked, 'the token endpoint was not asked');
}

export const forwardAuthRows: SecurityRow[] = [
  ...TARGETS.map(([trick, target]) => ({
    request: `X-Forwarded-Uri / X-Original-URI with ${trick} (${JSON.stringify(target.slice(0, 40))})`,
    expect: 'the status and token swap the proxy port gives the same target, in all four arrangements; nothing forwarded, no caller token in the answer',
    check: (s: SecurityStack) => decidedAlike(s, target),
  })),
  ...(
    [
      ['X-Forwarded-Host in another case, with a trailing dot', ['SECURE.Example.COM.']],
      ['X-Forwarded-Host with a port', ['secure.example.com:8080']],
      ['X-Forwarded-Host with userinfo', ['user@secure.example.com']],
      ['X-Forwarded-Host as a comma list', ['open.example, secure.example.com']],
      ['X-Forwarded-Host in punycode that is not the protected host', ['xn--scure-bsa.example.com']],
      ['X-Forwarded-Host with a non-ASCII byte', ['s\u00e9cure.example.com']],
    ] as [string, string[]][]
  ).map(([request, hosts]) => ({
    request,
    expect: 'decided as the proxy port decides that Host: the secure.example.com rule is neither dodged nor misapplied',
    check: (s: SecurityStack) => hostDecidedAlike(s, hosts),
  })),
  {
    request: "X-Forwarded-Host: secure.example.com beside the check's own Host: open.example",
    expect: "the proxy's X-Forwarded-Host decides (the plugin runs), as the proxy port's Host: secure.example.com would",
    check: (s) => hostDecidedAlike(s, ['secure.example.com'], 'open.example'),
  },
  {
    request: 'two X-Forwarded-Host lines (a client\'s "open.example" before the proxy\'s "secure.example.com")',
    expect: '400 GATEWAY_FORWARD_AUTH_CONFLICT, never the first believed; the token endpoint not asked',
    check: (s) =>
      refusedCheck(
        s,
        (token) => [
          ['X-Forwarded-Uri', '/api/x'],
          ['X-Forwarded-Host', 'open.example'],
          ['X-Forwarded-Host', 'secure.example.com'],
          ['Authorization', `Bearer ${token}`],
        ],
        400,
        'GATEWAY_FORWARD_AUTH_CONFLICT',
      ),
  },
  ...['get', 'FOO', 'CONNECT', 'PROPFIND', 'GET, POST', 'G'.repeat(5_000)].map((method) => ({
    request: `X-Forwarded-Method / X-Original-Method ${JSON.stringify(method.slice(0, 20))} (a check answered 200 to methods the proxy port refuses)`,
    expect: 'the status the proxy port gives that method: 400 for lower case, unknown tokens and CONNECT',
    check: (s: SecurityStack) => methodDecidedAlike(s, method),
  })),
  ...(
    [
      [
        'two X-Forwarded-Method lines',
        [
          ['X-Forwarded-Method', 'GET'],
          ['X-Forwarded-Method', 'DELETE'],
        ],
      ],
      [
        'X-Forwarded-Method and X-Original-Method that disagree',
        [
          ['X-Forwarded-Method', 'GET'],
          ['X-Original-Method', 'DELETE'],
        ],
      ],
      ['X-Forwarded-Uri and X-Original-URI that disagree', [['X-Original-URI', '/open/x']]],
    ] as [string, [string, string][]][]
  ).map(([request, extra]) => ({
    request,
    expect: '400 GATEWAY_FORWARD_AUTH_CONFLICT; the token endpoint not asked',
    check: (s: SecurityStack) =>
      refusedCheck(s, (token) => [['X-Forwarded-Uri', '/api/x'], ...extra, ['Authorization', `Bearer ${token}`]], 400, 'GATEWAY_FORWARD_AUTH_CONFLICT'),
  })),
];
