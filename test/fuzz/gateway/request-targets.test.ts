import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { readRequestPolicy } from '../../../src/gateway/config/request-policy.ts';
import { GatewayError } from '../../../src/gateway/request/gateway-error.ts';
import { readInbound } from '../../../src/gateway/request/inbound.ts';
import { fileKey } from '../../../src/gateway/settings/config-error.ts';
import { claims } from '../../helpers/oauth.ts';
import { type Arrangement, exchangeRaw, type FuzzStack, gatewayCode, guarded, LENIENT_PATHS, startFuzzStack } from './stack.ts';

/**
 * Request-targets and Host values sent as raw bytes to a running gateway. The oracle is the
 * gateway's own decision (readInbound: the normalised path, or the refusal), and what matters
 * is that the running gateway acts on exactly that decision: the upstream gets that path, the
 * plugin runs where that path is guarded, and a refusal forwards nothing.
 */

/** Pieces a path is normalised through: dot-segments, encodings of unreserved characters, case. */
const BENIGN = ['api', 'API', 'Api', 'open', 'OPEN', 'x', '', '.', '..', '%2e', '%2E%2e', '.%2e', '%61pi', 'ap%69', '%41PI', '%6Fpen', '~', '%7E', '%c3%a9'];
/** Pieces refused by default, or that only look like they change the path. */
const HOSTILE = [
  ...['%2f', '%2F', '%5c', '\\', ';', ';x', '..;', '.;', '%3B', '%00', '%0d%0a', '%1f', '%7f', '%20', '%zz', '%', '%4', '%252e'],
  ...['?', '?a=/../api', '#', '*', '@', ':', "'", '"', '<>', '|', '^', '`', '{}', '[', ']', '$', '!', '&=+,'],
];
/** Bytes Node's parser refuses in a request-target. */
const RAW = [' ', '\t', '\x00', '\x7f', '\x80', '\xff', '\x0b'];
const segment = fc.oneof(
  { weight: 12, arbitrary: fc.array(fc.constantFrom(...BENIGN), { minLength: 1, maxLength: 2 }).map((parts) => parts.join('')) },
  { weight: 3, arbitrary: fc.constantFrom(...HOSTILE) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary-ascii', maxLength: 4 }).map((s) => s.replace(/[\r\n]/g, '')) },
  { weight: 1, arbitrary: fc.constantFrom(...RAW) },
);
const path = fc.array(segment, { maxLength: 6 }).map((segments) => `/${segments.join('/')}`);
const authority = fc.constantFrom('SELF', 'self-upper', 'evil.example', 'user@SELF', '', 'a..b', '[::1]', 'SELF:99999', 'h:', 'secure.example.com.');
const target = fc.oneof(
  { weight: 5, arbitrary: path },
  {
    weight: 2,
    arbitrary: fc
      .tuple(fc.constantFrom('http', 'HTTP', 'https', 'ftp'), authority, fc.oneof(path, fc.constantFrom('', '?q=1')))
      .map(([s, a, p]) => `${s}://${a}${p}`),
  },
  { weight: 1, arbitrary: fc.constantFrom('*', 'SELF', '?', 'api/x', 'http:/api', '//api/x', 'http://') },
);
const hostHeader = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('SELF', 'self-upper') },
  { weight: 1, arbitrary: fc.constantFrom(undefined, '', 'evil.example', 'a,b', '[::1]:80', 'x%2e', 'h:99999', 'SELF.', 'SELF:80') },
  {
    weight: 1,
    arbitrary: fc.string({ unit: fc.constantFrom('a', 'Z', '0', '.', '-', '_', ':', '[', ']', ',', ';', '=', '"', '%', ' ', '@', '/'), maxLength: 12 }),
  },
);

/** Placeholders for the gateway's own host:port, as written and upper-cased. */
const fill = (text: string, self: string) => text.replace('self-upper', self.toUpperCase()).replace('SELF', self);

const policies = { default: readRequestPolicy({}, fileKey), lenient: readRequestPolicy(LENIENT_PATHS, fileKey) };

/** The gateway's decision for this request, from the same code it runs: a refusal's code, or path and query. */
function decide(arrangement: Arrangement, url: string, host: string | undefined): { code: string } | { path: string; query: string; host: string } {
  const rawHeaders = host === undefined ? [] : ['Host', host];
  const request = { url, headers: host === undefined ? {} : { host }, rawHeaders, httpVersionMajor: 1, httpVersionMinor: 1 };
  try {
    const inbound = readInbound(request as unknown as IncomingMessage, arrangement === 'lenient' ? policies.lenient : policies.default);
    return { ...inbound.target, host: inbound.hostText };
  } catch (error) {
    if (error instanceof GatewayError) return { code: error.code };
    throw error;
  }
}

/**
 * Node's parser takes only visible ASCII in a request-target, and only in origin form (`/…`),
 * asterisk form or absolute form (`scheme://…`); anything else never becomes a request.
 */
const nodeAccepts = (url: string) => /^[\x21-\x7e]*$/.test(url) && /^([/*]|[a-z][a-z0-9+.-]*:\/\/)/i.test(url);

/** What the upstream received of run `run` (the gateway answers only after it did). */
const received = (stack: FuzzStack, run: string) => stack.upstream.requests.filter((r) => r.headers['x-fuzz-run'] === run);

/** Runs whose request the gateway forwarded: a refused one must never show up at the upstream, even late. */
const forwarded = new Set<string>();

async function sendAndCheck(stack: FuzzStack, arrangement: Arrangement, rawTarget: string, rawHost: string | undefined, run: string): Promise<void> {
  const gateway = stack.gateways[arrangement];
  const self = new URL(gateway.url).host;
  const url = fill(rawTarget, self);
  const host = rawHost === undefined ? undefined : fill(rawHost, self);
  const credential = arrangement !== 'cookie' ? `Authorization: Bearer ${stack.token}` : `Cookie: theme=dark; session=${stack.token}`;
  const head = `GET ${url} HTTP/1.1\r\n${host === undefined ? '' : `Host: ${host}\r\n`}${credential}\r\nX-Fuzz-Run: ${run}\r\nConnection: close\r\n\r\n`;
  const answer = await exchangeRaw(gateway.url, Buffer.from(head, 'latin1'));
  assert.ok(answer.headers['x-request-id'], 'every answer carries X-Request-Id');
  // Node's parser takes spaces around the target as the separator,
  const delivered = url.replace(/^ +| +$/g, '');
  // and trims the spaces around a header's value.
  const decision = nodeAccepts(delivered) ? decide(arrangement, delivered, host?.trim()) : { code: 'GATEWAY_MALFORMED_REQUEST' };
  if ('code' in decision) {
    assert.equal(gatewayCode(answer), decision.code, answer.body);
    assert.deepEqual(received(stack, run), [], 'a refused request reached the upstream');
    return;
  }
  assert.equal(answer.status, 200, answer.body);
  assert.equal(answer.headers['x-upstream'], 'yes');
  forwarded.add(run);
  const [seen, ...more] = received(stack, run);
  assert.ok(seen && more.length === 0, 'the upstream received the request once');
  assert.equal(seen.url, `${decision.path}${decision.query}`, 'the upstream got the path the rules matched');
  assert.equal(seen.headers.host, new URL(stack.upstream.url).host, "the upstream's Host comes from the route");
  assert.equal(seen.headers['x-forwarded-host'], decision.host);
  const everything = `${seen.url}\n${seen.rawHeaders.join('\n')}`;
  if (guarded(arrangement, decision.path)) {
    assert.ok(!everything.includes(stack.token), `the caller's token reached the guarded ${seen.url}`);
    const delegated = claims(String(seen.headers.authorization).replace(/^Bearer /, ''));
    assert.deepEqual([delegated.sub, delegated.act?.sub], [stack.personId, stack.client.id], 'a delegated token went instead');
  } else {
    // Where a rule turns the plugin off, the request goes on as sent (docs/gateway.md).
    assert.equal(arrangement !== 'cookie' ? seen.headers.authorization : seen.headers.cookie, credential.split(': ')[1]);
  }
}

describe('Fuzz: request-targets and Host values sent raw to a running gateway', () => {
  let stack: FuzzStack;
  let runs = 0;
  before(async () => {
    stack = await startFuzzStack();
  });
  after(() => stack.close());

  for (const arrangement of ['header', 'cookie', 'lenient'] as const) {
    it(`${arrangement}: answers each with the gateway's decision, forwards exactly the normalised path, and guards what its rules guard`, async () => {
      await fc.assert(
        fc.asyncProperty(target, hostHeader, async (t, h) => sendAndCheck(stack, arrangement, t, h, String(++runs))),
        { numRuns: 400 },
      );
    });
  }

  it('forwarded nothing, even late, for any request it refused', async () => {
    await new Promise((resolve) => setTimeout(resolve, 200));
    const arrived = stack.upstream.requests.map((r) => String(r.headers['x-fuzz-run']));
    assert.deepEqual(
      arrived.filter((run) => !forwarded.has(run)),
      [],
      'requests the gateway refused reached the upstream',
    );
    assert.equal(new Set(arrived).size, arrived.length, 'a request reached the upstream twice');
    assert.ok(forwarded.size > 50, `only ${forwarded.size} of ${runs} requests were forwarded: the generator lost its way`);
  });

  const regressions: [name: string, arrangement: Arrangement, target: string, host: string | undefined][] = [
    ['a dot-segment climbing from an open path into a guarded one', 'header', '/open/%2e%2e/api/x', 'SELF'],
    ['a case-folded guarded path', 'cookie', '/%41PI', 'SELF'],
    ['an absolute-form target naming the gateway in upper case', 'cookie', 'HTTP://self-upper/open/../api?x', 'SELF'],
    // Found by this file: Node answered these itself, 400 with no envelope and no X-Request-Id.
    ['an HTTP/1.1 request without Host', 'header', '/open/x', undefined],
    ['an absolute-form target without Host', 'header', 'http://SELF', undefined],
    // Node's parser takes the spaces around a target as the separator: this is the path "/".
    ['a target followed by two spaces', 'header', '/ ', 'SELF'],
  ];
  for (const [name, arrangement, t, h] of regressions) {
    it(`regression: ${name} (${t})`, () => sendAndCheck(stack, arrangement, t, h, `regression-${++runs}`));
  }
});
