import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HashWorkPool } from '../../../src/credentials/password/hash-work-pool.ts';
import { ApiError } from '../../../src/errors/api-error.ts';
import { apiErrorStatus } from '../../../src/errors/catalogue.ts';

/** A job that finishes when the test says so. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, job: async () => opened };
}

describe('HashWorkPool', () => {
  it('runs at most `concurrency` jobs at once and starts queued ones in order as slots free', async () => {
    const pool = new HashWorkPool({ concurrency: 2, maxQueued: 5 });
    const gates = Array.from({ length: 5 }, gate);
    const started: number[] = [];
    const runs = gates.map((g, i) =>
      pool.run(async () => {
        started.push(i);
        await g.job();
        return i;
      }),
    );
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(started, [0, 1]);
    assert.equal(pool.running, 2);
    assert.equal(pool.queued, 3);
    gates[1]!.open();
    await runs[1];
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(started, [0, 1, 2]);
    for (const g of gates) g.open();
    assert.deepEqual(await Promise.all(runs), [0, 1, 2, 3, 4]);
    assert.equal(pool.running, 0);
    assert.equal(pool.queued, 0);
  });

  it('refuses at once when the queue is full: 503 PASSWORD_CHECKS_BUSY with Retry-After', async () => {
    const pool = new HashWorkPool({ concurrency: 1, maxQueued: 1, retryAfterSeconds: 2 });
    const g = gate();
    const running = pool.run(g.job);
    const queued = pool.run(async () => 'queued');
    await assert.rejects(
      pool.run(async () => 'refused'),
      (error: unknown) => {
        assert.ok(error instanceof ApiError);
        assert.equal(error.code, 'PASSWORD_CHECKS_BUSY');
        assert.equal(error.status, 503);
        assert.equal(apiErrorStatus.PASSWORD_CHECKS_BUSY, 503);
        assert.deepEqual(error.headers, { 'Retry-After': '2' });
        return true;
      },
    );
    g.open();
    await running;
    assert.equal(await queued, 'queued');
    assert.equal(await pool.run(async () => 'after'), 'after', 'accepts again once there is room');
  });

  it('frees the slot when a job fails', async () => {
    const pool = new HashWorkPool({ concurrency: 1, maxQueued: 0 });
    await assert.rejects(
      pool.run(async () => {
        throw new Error('hash failed');
      }),
      /hash failed/,
    );
    assert.equal(await pool.run(async () => 1), 1);
  });

  it('defaults to the available cores and a queue of 16 per slot, and refuses nonsense sizes', async () => {
    const { availableParallelism } = await import('node:os');
    const pool = new HashWorkPool();
    assert.equal(pool.concurrency, availableParallelism());
    assert.equal(pool.maxQueued, 16 * availableParallelism());
    assert.throws(() => new HashWorkPool({ concurrency: 0 }), RangeError);
    assert.throws(() => new HashWorkPool({ maxQueued: -1 }), RangeError);
  });
});
