import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { GatewayError } from '../../src/gateway/proxy/gateway-error.ts';
import { normalisePath, type PathPolicy, parseHost, parseRequestTarget, sameHost } from '../../src/gateway/proxy/request-target.ts';

const strict: PathPolicy = { escapedSlashes: 'reject', semicolons: 'reject', mergeSlashes: true };
const refused = (run: () => unknown, code = 'GATEWAY_BAD_REQUEST_TARGET') =>
  assert.throws(run, (error: unknown) => error instanceof GatewayError && error.status === 400 && error.code === code);

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
});

describe('Host comparison', () => {
  it('ignores case, a trailing dot and the default port', () => {
    assert.deepEqual(parseHost('API.Example.COM.'), { host: 'api.example.com', port: undefined });
    assert.deepEqual(parseHost('[::1]:8000'), { host: '[::1]', port: '8000' });
    assert.ok(sameHost(parseHost('Example.com.:80'), parseHost('example.com'), '80'));
    assert.ok(!sameHost(parseHost('example.com:8080'), parseHost('example.com'), '80'));
    assert.ok(!sameHost(parseHost('evil.com'), parseHost('example.com'), '80'));
  });
  for (const raw of [
    'exa mple.com',
    'a/b',
    'a:b:c',
    'example.com:123456',
    'example.com:70000',
    '[zz::1]',
    'a,for=6.6.6.6',
    'a;proto=https',
    'secure.example.com..',
    'secure%2eexample.com',
    '.example.com',
    'a..b',
    'example.com:',
  ]) {
    it(`refuses the Host ${JSON.stringify(raw)}`, () => refused(() => parseHost(raw), 'GATEWAY_BAD_HOST'));
  }
});
