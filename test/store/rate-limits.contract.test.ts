import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { OrganizationStore } from '../../src/store/organizations/store.ts';
import type { RateLimitStore } from '../../src/store/rate-limits/store.ts';
import { contractOnEveryBackend, storedOrg } from './contract-harness.ts';

const WINDOW = 60_000;

contractOnEveryBackend<RateLimitStore & OrganizationStore>('Rate-limit store', (t) => {
  it('allows up to the limit in a window, then says how long to wait', async () => {
    const { store } = t;
    const a = await storedOrg(store);
    const take = (now: number) => store.takeRateLimit({ orgId: a.id, key: 'op:a', now, windowMs: WINDOW, limit: 3 });
    assert.deepEqual(await take(1_000), { allowed: true, count: 1 });
    assert.deepEqual(await take(2_000), { allowed: true, count: 2 });
    assert.deepEqual(await take(3_000), { allowed: true, count: 3 });
    assert.deepEqual(await take(11_000), { allowed: false, count: 4, retryAfterMs: 50_000 });
    assert.deepEqual(await take(60_999), { allowed: false, count: 5, retryAfterMs: 1 }, 'refused events count, the window does not move');
    assert.deepEqual(await take(61_000), { allowed: true, count: 1 }, 'a new window starts once the old one ended');
  });

  it('counts each key and organisation apart', async () => {
    const { store } = t;
    const a = await storedOrg(store);
    const b = await storedOrg(store);
    const take = (orgId: string, key: string) => store.takeRateLimit({ orgId, key, now: 1_000, windowMs: WINDOW, limit: 1 });
    assert.equal((await take(a.id, 'op:a')).allowed, true);
    assert.equal((await take(a.id, 'op:a')).allowed, false);
    assert.equal((await take(a.id, 'op:b')).allowed, true);
    assert.equal((await take(b.id, 'op:a')).allowed, true);
  });

  it('allows exactly the limit of thirty concurrent events, the first ones included', async () => {
    const { store } = t;
    const a = await storedOrg(store);
    const outcomes = await Promise.all(
      Array.from({ length: 30 }, () => store.takeRateLimit({ orgId: a.id, key: 'op:race', now: 1_000, windowMs: WINDOW, limit: 10 })),
    );
    assert.equal(outcomes.filter((o) => o.allowed).length, 10);
    assert.deepEqual(
      outcomes.map((o) => o.count).sort((x, y) => x - y),
      Array.from({ length: 30 }, (_, i) => i + 1),
    );
  });

  it('purges counters whose window started before the given time', async () => {
    const { store } = t;
    const a = await storedOrg(store);
    await store.takeRateLimit({ orgId: a.id, key: 'op:old', now: 1_000, windowMs: WINDOW, limit: 1 });
    await store.takeRateLimit({ orgId: a.id, key: 'op:new', now: 100_000, windowMs: WINDOW, limit: 1 });
    assert.ok((await store.purgeRateLimits(50_000, 100)) >= 1);
    assert.equal((await store.takeRateLimit({ orgId: a.id, key: 'op:old', now: 2_000, windowMs: WINDOW, limit: 1 })).allowed, true, 'forgotten');
    assert.equal((await store.takeRateLimit({ orgId: a.id, key: 'op:new', now: 100_001, windowMs: WINDOW, limit: 1 })).allowed, false, 'kept');
  });
});
