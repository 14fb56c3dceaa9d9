import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { purgeExpiredTokens } from '../../../src/oauth/tokens/purge.ts';
import { openStore } from '../../../src/store/open-store.ts';
import type { Store } from '../../../src/store/store.ts';
import { storedOrg, token } from '../../store/contract-harness.ts';

/** The frozen clock: token() makes tokens that expire at 2,000 ms. */
const NOW = 10_000;

describe('The expired-token purge', () => {
  let store: Store;
  let orgId: string;
  before(async () => {
    ({ store } = await openStore('sqlite::memory:'));
    ({ id: orgId } = await storedOrg(store));
  });
  after(() => store.close());

  it('deletes every expired token in slices, keeps current ones, and answers reads meanwhile', async () => {
    const expired = Array.from({ length: 3_000 }, () => token(orgId));
    const current = Array.from({ length: 20 }, () => ({ ...token(orgId), expiresAt: NOW + 60_000 }));
    await Promise.all([...expired, ...current].map((t) => store.insertToken(t)));
    const errors: unknown[] = [];
    const stop = purgeExpiredTokens(
      store,
      5,
      (error) => errors.push(error),
      () => NOW,
    );
    try {
      let reads = 0;
      while ((await store.findToken(expired.at(-1)!.hash)) !== undefined || (await store.findToken(expired[0]!.hash)) !== undefined) {
        reads++;
        await sleep(1);
      }
      assert.ok(reads > 1, 'the purge took more than one slice, with reads answered between them');
      for (const t of expired.slice(0, 100)) assert.equal(await store.findToken(t.hash), undefined);
      for (const t of current) assert.deepEqual(await store.findToken(t.hash), t);
      assert.deepEqual(errors, []);
    } finally {
      stop();
    }
  });

  it('regression: a purge cut short by shutdown was logged as "purging expired tokens failed"', async () => {
    const { store: closing } = await openStore('sqlite::memory:');
    const { id } = await storedOrg(closing);
    await Promise.all(Array.from({ length: 2_000 }, () => closing.insertToken(token(id))));
    const errors: unknown[] = [];
    const stop = purgeExpiredTokens(
      closing,
      5,
      (error) => errors.push(error),
      () => NOW,
    );
    await sleep(12); // the first slice is under way or done
    stop();
    await closing.close();
    await sleep(50);
    assert.deepEqual(errors, []);
  });
});
