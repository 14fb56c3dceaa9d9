import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { LoginsPerSource } from '../../src/authn/logins-per-source.ts';
import { ApiError } from '../../src/errors/api-error.ts';
import { sourceOf } from '../../src/runtime/client-source.ts';
import { backends } from '../helpers/backends.ts';
import { startTestService, type TestOrg, type TestService } from '../helpers/service.ts';

describe('LoginsPerSource', () => {
  it('lets `limit` logins per address in, refuses the next with 429 and Retry-After, and forgets idle addresses', () => {
    const bound = new LoginsPerSource(2);
    const leaves = [bound.enter('192.0.2.1'), bound.enter('192.0.2.1')];
    assert.throws(
      () => bound.enter('192.0.2.1'),
      (error: unknown) =>
        error instanceof ApiError && error.code === 'TOO_MANY_LOGINS_IN_FLIGHT' && error.status === 429 && error.headers['Retry-After'] === '1',
    );
    const other = bound.enter('192.0.2.2');
    leaves[0]!();
    leaves[0]!();
    const again = bound.enter('192.0.2.1');
    assert.throws(() => bound.enter('192.0.2.1'), ApiError, 'leaving twice counts out once');
    for (const leave of [leaves[1]!, again, other]) leave();
    assert.equal(bound.sources, 0);
  });

  it('counts an IPv6 /64 as one source, and an IPv4-mapped address as its IPv4 address', () => {
    assert.equal(sourceOf('2001:db8:1:2:aaaa::1'), '2001:db8:1:2::/64');
    assert.equal(sourceOf('2001:0db8:0001:0002:ffff:ffff:ffff:ffff'), '2001:db8:1:2::/64');
    assert.equal(sourceOf('2001:db8::5'), '2001:db8:0:0::/64');
    assert.equal(sourceOf('::1'), '0:0:0:0::/64');
    assert.equal(sourceOf('::ffff:192.0.2.7'), '192.0.2.7');
    assert.equal(sourceOf('192.0.2.7'), '192.0.2.7');
    const bound = new LoginsPerSource(1);
    bound.enter('2001:db8:1:2::1');
    assert.throws(() => bound.enter('2001:db8:1:2:ffff::9'), ApiError, 'another address of the same /64');
    bound.enter('2001:db8:1:3::1');
  });

  it('is off at 0, and refuses a nonsense limit', () => {
    const off = new LoginsPerSource(0);
    for (let i = 0; i < 100; i++) off.enter('192.0.2.1');
    assert.throws(() => new LoginsPerSource(-1), RangeError);
  });
});

for (const backend of backends()) {
  describe(`Password logins per client address, on ${backend.name}`, () => {
    let t: TestService;
    let org: TestOrg;

    before(async () => {
      t = await startTestService(backend, { TESSERA_LOGINS_PER_SOURCE: '2', TESSERA_TRUSTED_PROXIES: '127.0.0.1' });
      org = await t.org();
    });
    after(() => t.close());

    const guess = (forwardedFor: string) =>
      t.call('POST', '/authn/password', {
        as: { 'service-orgid': org.orgId, 'x-forwarded-for': forwardedFor },
        body: { handle: { type: 'email_address', value: `nobody${Math.random()}@example.com` }, password: 'guess' },
      });

    it('regression: one client sending logins for made-up handles filled the hash queue; now it holds two places, others are served', async () => {
      const flood = await Promise.all(Array.from({ length: 12 }, () => guess('203.0.113.9')));
      const statuses = flood.map((response) => response.status);
      // Each answered login frees its place, so a slow arrival may be served: at least the first two are.
      assert.ok(
        statuses.every((status) => status === 401 || status === 429),
        String(statuses),
      );
      assert.ok(statuses.filter((status) => status === 401).length >= 2, String(statuses));
      assert.ok(statuses.filter((status) => status === 429).length >= 6, `most of the burst is refused: ${statuses}`);
      const refused = flood.find((response) => response.status === 429)!;
      assert.equal(refused.headers.get('retry-after'), '1');
      assert.equal(refused.body.errors[0].code, 'TOO_MANY_LOGINS_IN_FLIGHT');
      const [a, b] = await Promise.all([guess('203.0.113.10'), guess('198.51.100.7')]);
      assert.deepEqual([a.status, b.status], [401, 401], 'other addresses are not refused');
      assert.equal((await guess('203.0.113.9')).status, 401, 'once its logins are answered, the address is served again');
    });

    it('counts by X-Forwarded-For only from a trusted proxy: a made-up header does not make a new source', async () => {
      const direct = await startTestService(backend, { TESSERA_LOGINS_PER_SOURCE: '1' });
      try {
        const directOrg = await direct.org();
        const responses = await Promise.all(
          Array.from({ length: 6 }, (_, i) =>
            direct.call('POST', '/authn/password', {
              as: { 'service-orgid': directOrg.orgId, 'x-forwarded-for': `203.0.113.${i + 1}` },
              body: { handle: { type: 'email_address', value: 'y@example.com' }, password: 'guess' },
            }),
          ),
        );
        assert.ok(
          responses.some((response) => response.status === 429),
          'six different X-Forwarded-For from one peer are one source',
        );
      } finally {
        await direct.close();
      }
    });
  });
}
