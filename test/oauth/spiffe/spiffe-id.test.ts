import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseSpiffeId, parseWorkloadSpiffeId } from '../../../src/oauth/spiffe/spiffe-id.ts';

const WORKLOAD = 'spiffe://example.org/ns/prod/sa/billing';

describe('SPIFFE ID grammar (SPIFFE-ID.md)', () => {
  it('splits a SPIFFE ID into trust domain and path', () => {
    assert.deepEqual(parseSpiffeId(WORKLOAD), { trustDomain: 'example.org', path: '/ns/prod/sa/billing' });
    assert.deepEqual(parseSpiffeId('spiffe://a_b-c.9/A.b_c-D/x..y'), { trustDomain: 'a_b-c.9', path: '/A.b_c-D/x..y' });
    assert.deepEqual(parseSpiffeId('spiffe://example.org'), { trustDomain: 'example.org', path: '' });
  });

  it('accepts exactly 2048 bytes in all and 255 in the trust domain, and no more', () => {
    const longest = `spiffe://example.org/${'a'.repeat(2048 - 'spiffe://example.org/'.length)}`;
    assert.equal(parseSpiffeId(longest)?.path.length, 2048 - 'spiffe://example.org'.length);
    assert.equal(parseSpiffeId(`${longest}a`), undefined);
    assert.equal(parseSpiffeId(`spiffe://${'a'.repeat(255)}/w`)?.trustDomain.length, 255);
    assert.equal(parseSpiffeId(`spiffe://${'a'.repeat(256)}/w`), undefined);
  });

  it('refuses everything the standard excludes', () => {
    for (const bad of [
      'https://example.org/a',
      'SPIFFE://example.org/a',
      'spiffe://Example.org/a',
      'spiffe:///a',
      'spiffe://',
      'spiffe:example.org/a',
      'spiffe://example.org/',
      'spiffe://example.org/a/',
      'spiffe://example.org//a',
      'spiffe://example.org/./a',
      'spiffe://example.org/a/..',
      'spiffe://example.org:8443/a',
      'spiffe://user@example.org/a',
      'spiffe://example.org/a?x=1',
      'spiffe://example.org/a#f',
      'spiffe://example.org/a%20b',
      'spiffe://example.org/a b',
      'spiffe://exam\u00e9ple.org/a',
      'spiffe://example.org/a\n',
      'spiffe://example.org/a/\u00e9',
      42,
      undefined,
    ])
      assert.equal(parseSpiffeId(bad), undefined, String(bad));
  });

  it('names a workload only with a path', () => {
    assert.deepEqual(parseWorkloadSpiffeId(WORKLOAD), { trustDomain: 'example.org', path: '/ns/prod/sa/billing' });
    assert.equal(parseWorkloadSpiffeId('spiffe://example.org'), undefined);
  });
});
