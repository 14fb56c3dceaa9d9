import assert from 'node:assert/strict';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { BlockList } from 'node:net';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { readToken, stripToken } from '../../../src/gateway/plugins/token-exchange/credentials.ts';
import { setForwardingHeaders } from '../../../src/gateway/proxy/forwarding.ts';
import { countHeader, type ForwardHeaders, forwardableHeaders } from '../../../src/gateway/request/headers.ts';

const HOP_BY_HOP = ['connection', 'keep-alive', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'proxy-authorization', 'host', 'expect'];
const CLAIMS = ['x-forwarded-for', 'x-forwarded-host', 'x-forwarded-proto', 'x-forwarded-ssl', 'forwarded', 'x-real-ip', 'true-client-ip', 'cf-connecting-ip'];
const OVERRIDES = ['x-original-url', 'x-rewrite-url', 'x-original-uri', 'x-envoy-original-path'];
/** Header names as Node hands them over (lower-case RFC 9110 tokens). */
const name = fc.oneof(
  fc.constantFrom(...HOP_BY_HOP, ...CLAIMS, ...OVERRIDES, 'authorization', 'cookie', 'x_forwarded_for', 'x-api_key', 'accept', 'x-request-id'),
  fc.stringMatching(/^[a-z0-9!#$%&'*+.^_`|~-]{1,12}$/),
);
const value = fc.string({ unit: fc.constantFrom('a', 'Z', '0', ' ', ',', ';', '=', '"', '\\', ':', '_', '-', '\t', 'é'), maxLength: 16 });
const headerList = fc.array(fc.tuple(name, value), { maxLength: 12 });

function incoming(list: [string, string][]): IncomingHttpHeaders {
  const headers: IncomingHttpHeaders = {};
  for (const [n, v] of list) {
    const seen = headers[n];
    if (n === 'set-cookie') headers[n] = [...(seen ?? []), v];
    else headers[n] = seen === undefined ? v : `${seen}, ${v}`;
  }
  return headers;
}

const fakeRequest = (remoteAddress: string, rawHeaders: string[] = []) => ({ socket: { remoteAddress }, rawHeaders }) as unknown as IncomingMessage;

describe('Fuzz: header parsers (pure)', () => {
  it('forwards every header but hop-by-hop ones, those Connection names, and names with "_", values untouched', () => {
    fc.assert(
      fc.property(headerList, fc.array(name, { maxLength: 3 }), (list, named) => {
        const headers = incoming(named.length > 0 ? [...list, ['connection', ` ${named.join(' ,').toUpperCase()} `]] : list);
        const out = forwardableHeaders(headers);
        const connection = String(headers.connection ?? '');
        const dropped = new Set([...HOP_BY_HOP, ...connection.split(',').map((n) => n.toLowerCase().trim())]);
        for (const [n, v] of Object.entries(headers)) {
          if (dropped.has(n) || n.includes('_')) assert.equal(out[n], undefined, `${n} went upstream`);
          else assert.deepEqual(out[n], v, `${n} changed`);
        }
        assert.ok(Object.keys(out).every((n) => n in headers));
      }),
      { numRuns: 3000 },
    );
  });

  it('counts a header in every spelling of its name', () => {
    const spelled = fc.array(fc.tuple(fc.constantFrom('Authorization', 'authorization', 'AUTHORIZATION', 'AuThOrIzAtIoN', 'Host', 'X-Authorization'), value));
    fc.assert(
      fc.property(spelled, (list) => {
        const raw = list.flat();
        const expected = list.filter(([n]) => n.toLowerCase() === 'authorization').length;
        assert.equal(countHeader(fakeRequest('127.0.0.1', raw), 'authorization'), expected);
      }),
      { numRuns: 1000 },
    );
  });

  it('sets the forwarding headers itself for an untrusted peer, the host quoted in Forwarded (RFC 7239)', () => {
    const host = fc.oneof(fc.domain(), fc.constantFrom('[::1]:8080', 'h:1', ''));
    const peer = fc.oneof(
      fc.ipV4(),
      fc.ipV6(),
      fc.ipV4().map((a) => `::ffff:${a}`),
    );
    fc.assert(
      fc.property(headerList, host, peer, (list, hostText, address) => {
        const headers: ForwardHeaders = forwardableHeaders(incoming(list));
        setForwardingHeaders(headers, fakeRequest(address), { host: hostText, trustedProxies: new BlockList() });
        const plain = address.startsWith('::ffff:') ? address.slice(7) : address;
        assert.equal(headers['x-forwarded-for'], plain);
        assert.equal(headers['x-real-ip'], plain);
        assert.equal(headers['x-forwarded-host'], hostText);
        assert.equal(headers['x-forwarded-proto'], 'http');
        const forwarded = String(headers.forwarded);
        const element = /^for=("\[[^"]+\]"|[0-9.]+);host="([^"\\]*)";proto=http$/.exec(forwarded);
        assert.ok(element, forwarded);
        assert.equal(element[2], hostText);
        for (const n of [
          ...OVERRIDES,
          ...CLAIMS.filter((c) => !['x-forwarded-for', 'x-forwarded-host', 'x-forwarded-proto', 'forwarded', 'x-real-ip'].includes(c)),
        ])
          assert.equal(headers[n], undefined, `${n} went upstream`);
      }),
      { numRuns: 2000 },
    );
  });
});

/** b64token (RFC 6750 §2.1) characters, as real tokens are made of. */
const token = fc.stringMatching(/^[A-Za-z0-9\-._~+/]{8,40}=?$/);
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;

describe('Fuzz: token reading and stripping (pure)', () => {
  it('reads from a header only a b64token of at most 16384 characters; anything else is missing or malformed', () => {
    const headerValue = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 30 }),
      token.map((t) => `Bearer ${t}`),
      fc
        .tuple(fc.constantFrom('Bearer', 'bearer', 'BEARER', 'Basic', 'Bearer\t', 'Bearer  '), fc.string({ unit: 'binary-ascii', maxLength: 20 }))
        .map((p) => p.join(' ')),
      fc.constantFrom('Bearer', 'Bearer ', '', 'a'.repeat(16_385), `Bearer ${'a'.repeat(16_384)}`),
    );
    fc.assert(
      fc.property(headerValue, (v) => {
        const reading = readToken({ authorization: v }, { header: 'Authorization' });
        if (reading.kind === 'token') {
          assert.match(reading.token, B64TOKEN);
          assert.ok(reading.token.length <= 16_384);
          assert.ok(v.includes(reading.token));
        } else if (reading.kind === 'missing') assert.match(v.trim(), /^(Bearer)?$/i);
      }),
      { numRuns: 3000 },
    );
  });

  it('strips the subject cookie and every cookie a lenient parser could read as it, and keeps the others in order', () => {
    const variant = fc.constantFrom('session', 'SESSION', 'Session', 'sessi%6Fn', '%73ession', 'sess%69on', 'session ');
    const other = fc.tuple(fc.stringMatching(/^[a-z]{1,6}$/), fc.stringMatching(/^[a-zA-Z0-9]{0,6}$/));
    fc.assert(
      fc.property(
        token,
        fc.array(
          fc.oneof(
            other,
            variant.map((n) => [n, '<token>'] as [string, string]),
          ),
          { maxLength: 8 },
        ),
        (t, list) => {
          const jar = list.map(([n, v]) => `${n}=${v.replace('<token>', t)}`).join('; ');
          const headers: ForwardHeaders = { cookie: `theme=dark; ${jar}` };
          stripToken(headers, { cookie: 'session' }, t);
          const left = String(headers.cookie ?? '');
          assert.ok(!left.includes(t), `the token is still in ${left}`);
          const kept = list.filter(([n, v]) => !/^(session|sessi%6fn|%73ession|sess%69on)\s*$/i.test(n) && !v.includes('<token>'));
          assert.equal(left, ['theme=dark', ...kept.map(([n, v]) => `${n}=${v}`)].join('; '));
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('reads the cookie of exactly the configured name, the first one when repeated', () => {
    const cookie = fc.tuple(fc.constantFrom('session', 'SESSION', 'sessions', 'x'), fc.oneof(token, fc.constantFrom('', '"q"', 'a b')));
    fc.assert(
      fc.property(fc.array(cookie, { maxLength: 5 }), (list) => {
        const reading = readToken({ cookie: list.map(([n, v]) => `${n}=${v}`).join('; ') }, { cookie: 'session' });
        const first = list.find(([n]) => n === 'session')?.[1];
        if (!first) assert.equal(reading.kind, 'missing');
        else if (B64TOKEN.test(first)) assert.deepEqual(reading, { kind: 'token', token: first });
        else assert.equal(reading.kind, 'malformed');
      }),
      { numRuns: 2000 },
    );
  });
});
