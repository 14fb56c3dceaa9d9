import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { GatewayError } from '../../src/gateway/request/gateway-error.ts';
import { normalisePath, type PathPolicy, parseHost, parseRequestTarget, sameHost } from '../../src/gateway/request/request-target.ts';

const strict: PathPolicy = { escapedSlashes: 'reject', semicolons: 'reject', mergeSlashes: true };
const refused = (run: () => unknown, code = 'GATEWAY_BAD_REQUEST_TARGET') =>
  assert.throws(run, (error: unknown) => error instanceof GatewayError && error.status === 400 && error.code === code);
/** The refusal as the client reads it in the 400 body. */
const refusedWith = (run: () => unknown, message: string, code = 'GATEWAY_BAD_REQUEST_TARGET') =>
  assert.throws(run, (error: unknown) => error instanceof GatewayError && error.status === 400 && error.code === code && error.message === message);
const keepSemicolons: PathPolicy = { ...strict, semicolons: 'keep' };

describe('Request-target normalisation (RFC 3986 §6.2.2)', () => {
  const same: [string, string][] = [
    ['/api/orders', '/api/orders'],
    ['/', '/'],
    ['/a/./b', '/a/b'],
    ['/a/b/../c', '/a/c'],
    ['/a/b/..', '/a/'],
    ['/a/.', '/a/'],
    ['/%61pi/%7Ex', '/api/~x'],
    ['/a%2e%2E/b', '/a../b'],
    ['/open/%2e%2e/api', '/api'],
    ['/caf%c3%a9', '/caf%C3%A9'],
    ['//api///x//', '/api/x/'],
  ];
  for (const [raw, normal] of same) it(`reads ${raw} as ${normal}`, () => assert.equal(normalisePath(raw, strict), normal));

  const bad = [
    '/../x',
    '/a/../../x',
    '/%2e%2e/x',
    '/a%2Fb',
    '/a%2fb',
    '/a%5Cb',
    '/a\\b',
    '/open/..;/api',
    '/a/.;x/b',
    '/a%zz',
    '/a%',
    '/a%4',
    '/a%00b',
    '/a%0d%0aX:1',
    '/a%7F',
  ];
  for (const raw of bad) it(`refuses ${raw}`, () => refused(() => normalisePath(raw, strict)));

  it('keeps escaped slashes as segment characters when told to keep them', () => {
    assert.equal(normalisePath('/open%2F..%2Fapi/x', { escapedSlashes: 'keep', semicolons: 'reject', mergeSlashes: true }), '/open%2F..%2Fapi/x');
  });
  it('turns escaped slashes and backslashes into separators when told to unescape them', () => {
    assert.equal(normalisePath('/open%2F..%5Capi\\x', { escapedSlashes: 'unescape', semicolons: 'reject', mergeSlashes: true }), '/api/x');
  });
  it('refuses ";" by default (servlet containers strip ";params" from segments) and keeps it when told to', () => {
    refused(() => normalisePath('/api;jsessionid=1/x', strict));
    assert.equal(normalisePath('/a;v=1/b', { ...strict, semicolons: 'keep' }), '/a;v=1/b');
    refused(() => normalisePath('/open/..;/api', { ...strict, semicolons: 'keep' }));
  });
  it('keeps repeated slashes when merging is off', () => {
    assert.equal(normalisePath('//a//b', { escapedSlashes: 'reject', semicolons: 'reject', mergeSlashes: false }), '//a//b');
  });

  it('splits the query off untouched, and reads an absolute-form target by its path', () => {
    assert.deepEqual(parseRequestTarget('/a/../b?x=/../%2F', strict), { path: '/b', query: '?x=/../%2F' });
    assert.deepEqual(parseRequestTarget('HTTP://Example.com:8080/open/../api?q', strict), { path: '/api', query: '?q', authority: 'Example.com:8080' });
    assert.deepEqual(parseRequestTarget('http://example.com', strict), { path: '/', query: '', authority: 'example.com' });
  });
  for (const raw of ['*', 'example.com:443', 'ftp://example.com/x', 'http://user@example.com/x', 'http:///x', '/a#frag']) {
    it(`refuses the request-target ${raw}`, () => refused(() => parseRequestTarget(raw, strict)));
  }

  it('reads an absolute-form target with a query and no path as the root with that query', () => {
    assert.deepEqual(parseRequestTarget('http://example.com?x=1', strict), { path: '/', query: '?x=1', authority: 'example.com' });
    assert.deepEqual(parseRequestTarget('https://example.com:8443?', strict), { path: '/', query: '?', authority: 'example.com:8443' });
  });
  it('forwards the path of an absolute-form target as sent, without a slash of its own before it', () => {
    const keepSlashes: PathPolicy = { ...strict, mergeSlashes: false };
    assert.deepEqual(parseRequestTarget('http://example.com/a', keepSlashes), { path: '/a', query: '', authority: 'example.com' });
    assert.deepEqual(parseRequestTarget('http://example.com//a', keepSlashes), { path: '//a', query: '', authority: 'example.com' });
  });
  it('reads an absolute-form target only from the start of the request-target', () => {
    refusedWith(() => parseRequestTarget('xhttp://example.com/x', strict), 'the request-target must be a path (/…) or an absolute http(s) URL');
    refusedWith(() => parseRequestTarget('.http://example.com/x', strict), 'the request-target must be a path (/…) or an absolute http(s) URL');
  });

  const refusals: [string, string, PathPolicy][] = [
    ['/a#frag', 'the request-target must not carry a fragment (#)', strict],
    // A forward-auth check's X-Forwarded-Uri is a header value: it can carry what a request line cannot.
    ['/open/x /../../api/x', 'the request-target holds a space, a control or a non-ASCII character', strict],
    [' http://example.com/x', 'the request-target holds a space, a control or a non-ASCII character', strict],
    ['/a\tb', 'the request-target holds a space, a control or a non-ASCII character', strict],
    ['/caf\u00e9', 'the request-target holds a space, a control or a non-ASCII character', strict],
    ['/a\u007f', 'the request-target holds a space, a control or a non-ASCII character', strict],
    ['http://example.com/#x', 'the request-target must not carry a fragment (#)', strict],
    ['*', 'the request-target must be a path (/…) or an absolute http(s) URL', strict],
    ['ftp://example.com/x', 'the request-target must be a path (/…) or an absolute http(s) URL', strict],
    ['http://user@example.com/x', 'the absolute-form target must name a host, without user information', strict],
    ['http:///x', 'the absolute-form target must name a host, without user information', strict],
    ['http://?x', 'the absolute-form target must name a host, without user information', strict],
    ['/a%2Fb', 'the path holds an escaped slash (%2F, %5C) or a backslash, which upstreams read differently', strict],
    ['/a\\b', 'the path holds an escaped slash (%2F, %5C) or a backslash, which upstreams read differently', strict],
    ['/api;jsessionid=1/x', 'the path holds a ";", which servlet containers strip with what follows it from a segment', strict],
    ['/open/..;/api', 'a dot-segment with parameters (..;) is not allowed in the path', keepSemicolons],
    ['/a/.;x/b', 'a dot-segment with parameters (..;) is not allowed in the path', keepSemicolons],
    ['/../x', 'the path climbs above the root (..)', strict],
    ['/a/%2e%2e/../x', 'the path climbs above the root (..)', strict],
    ['/a%zz', 'the path holds a % that does not start a percent-encoding (%XX)', strict],
    ['/a%', 'the path holds a % that does not start a percent-encoding (%XX)', strict],
    ['/a%4', 'the path holds a % that does not start a percent-encoding (%XX)', strict],
    ['/a%4g/b', 'the path holds a % that does not start a percent-encoding (%XX)', strict],
    ['/a%00b', 'the path holds an encoded control character', strict],
    ['/a%1F', 'the path holds an encoded control character', strict],
    ['/a%7f', 'the path holds an encoded control character', strict],
  ];
  for (const [raw, message, policy] of refusals) {
    it(`refuses ${raw} with: ${message}`, () => refusedWith(() => parseRequestTarget(raw, policy), message));
  }

  it('keeps a segment that only ends in "." before a ";" when semicolons are kept: it is not a dot-segment', () => {
    assert.equal(normalisePath('/v1.;x/y', keepSemicolons), '/v1.;x/y');
    assert.equal(normalisePath('/a..;x/y', keepSemicolons), '/a..;x/y');
  });
  it('keeps an encoded space (%20): it is not a control character, and not unreserved', () => {
    assert.equal(normalisePath('/a%20b/%7e', strict), '/a%20b/~');
  });
});

describe('Host comparison', () => {
  it('ignores case, a trailing dot and the default port', () => {
    assert.deepEqual(parseHost('API.Example.COM.'), { host: 'api.example.com', port: undefined });
    assert.deepEqual(parseHost('[::1]:8000'), { host: '[::1]', port: '8000' });
    assert.deepEqual(parseHost('example.com:65535'), { host: 'example.com', port: '65535' });
    assert.ok(sameHost(parseHost('Example.com.:80'), parseHost('example.com'), '80'));
    assert.ok(!sameHost(parseHost('example.com:8080'), parseHost('example.com'), '80'));
    assert.ok(!sameHost(parseHost('evil.com'), parseHost('example.com'), '80'));
  });
  it('reads an empty Host as no host (RFC 9112 §3.2 allows it)', () => {
    assert.deepEqual(parseHost(''), { host: '', port: undefined });
  });
  for (const raw of [
    'exa mple.com',
    'a/b',
    'a:b:c',
    'example.com:123456',
    'example.com:70000',
    '[zz::1]',
    '[..]',
    '[1::2::3]',
    '[::1',
    'a,for=6.6.6.6',
    'a;proto=https',
    'secure.example.com..',
    'secure%2eexample.com',
    '.example.com',
    'a..b',
    'example.com:',
  ]) {
    it(`refuses the Host ${JSON.stringify(raw)}`, () => refusedWith(() => parseHost(raw), 'the Host header is not a valid host[:port]', 'GATEWAY_BAD_HOST'));
  }
});
