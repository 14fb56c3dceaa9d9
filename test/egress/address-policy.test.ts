import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isAllowedAddress, tenantUrlProblem } from '../../src/egress/address-policy.ts';

/**
 * Where a URL an organisation chose (a scim_pull base_url, a client's jwks_uri, a trust bundle)
 * may lead the service: nowhere in its own networks, however the address is spelled.
 */
describe('the address policy of requests to a tenant-chosen URL', () => {
  it('refuses the service`s own networks, in every spelling that reaches them', () => {
    const refused = [
      '10.0.0.1',
      '127.0.0.1',
      '169.254.169.254', // cloud metadata
      '100.64.0.1',
      '172.16.5.4',
      '192.168.1.1',
      '0.0.0.0',
      '224.0.0.1',
      '192.0.0.8',
      '198.18.0.1', // regression: benchmarking networks were reachable
      '::1',
      '::',
      'fe80::1',
      'fc00::1',
      'ff02::1',
      '::ffff:10.0.0.1', // IPv4-mapped
      '64:ff9b::a00:1', // NAT64 of 10.0.0.1
      '2002:a00:1::1', // regression: 6to4 of 10.0.0.1 was reachable
      'fec0::1', // regression: site-local was reachable
    ];
    for (const address of refused) assert.equal(isAllowedAddress(address, { allowLoopback: false }), false, address);
  });

  it('allows public addresses, and loopback only when development allows it', () => {
    for (const address of ['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111'])
      assert.equal(isAllowedAddress(address, { allowLoopback: false }), true, address);
    assert.equal(isAllowedAddress('127.0.0.1', { allowLoopback: true }), true);
    assert.equal(isAllowedAddress('::1', { allowLoopback: true }), true);
    assert.equal(isAllowedAddress('10.0.0.1', { allowLoopback: true }), false, 'development opens loopback, nothing else');
  });

  it('takes https URLs; http to loopback only in development; a query where the use allows one', () => {
    const cases: [string, { dev: boolean; allowQuery: boolean }, string | undefined][] = [
      ['https://keys.example.com/jwks.json', { dev: false, allowQuery: false }, undefined],
      ['https://keys.example.com/jwks.json?v=2', { dev: false, allowQuery: true }, undefined],
      ['https://keys.example.com/jwks.json?v=2', { dev: false, allowQuery: false }, 'must not carry a query, a fragment or credentials'],
      ['https://user:pw@keys.example.com/', { dev: false, allowQuery: true }, 'must not carry a fragment or credentials'],
      ['http://keys.example.com/', { dev: true, allowQuery: true }, 'must use https'],
      ['http://127.0.0.1:9/', { dev: false, allowQuery: true }, 'http is allowed for loopback only when the service runs with TESSERA_DEV=1; use https'],
      ['http://127.0.0.1:9/', { dev: true, allowQuery: true }, undefined],
      ['keys.example.com/jwks.json', { dev: false, allowQuery: true }, 'must be an absolute URL'],
    ];
    for (const [url, options, problem] of cases) assert.equal(tenantUrlProblem(url, options), problem, url);
  });
});
