import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BackgroundRefresh, Backoff, type Schedule } from '../../src/concurrency/refresh-with-backoff.ts';

/** A schedule that records delays and runs timers only when told to. */
function manualSchedule() {
  const timers: { run: () => void; delayMs: number; cancelled: boolean }[] = [];
  const schedule: Schedule = (run, delayMs) => {
    const timer = { run, delayMs, cancelled: false };
    timers.push(timer);
    return () => (timer.cancelled = true);
  };
  const fireLast = async () => {
    const timer = timers.at(-1)!;
    assert.equal(timer.cancelled, false, 'the pending timer is live');
    timer.run();
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { schedule, timers, fireLast };
}

describe('Backoff', () => {
  it('doubles from the initial delay up to the maximum, and starts over after a success', () => {
    const backoff = new Backoff({ initialMs: 100, maxMs: 500 });
    assert.deepEqual(
      [1, 2, 3, 4, 5].map(() => backoff.failed()),
      [100, 200, 400, 500, 500],
    );
    backoff.succeeded();
    assert.equal(backoff.failed(), 100);
  });

  it('knows when the next attempt is due', () => {
    const backoff = new Backoff({ initialMs: 100, maxMs: 5_000 });
    assert.equal(backoff.waiting(0), false);
    backoff.failed(1_000);
    assert.deepEqual(
      [1_000, 1_099, 1_100].map((now) => backoff.waiting(now)),
      [true, true, false],
    );
    backoff.failed(1_100);
    assert.deepEqual(
      [1_299, 1_300].map((now) => backoff.waiting(now)),
      [true, false],
    );
    backoff.succeeded();
    assert.equal(backoff.waiting(1_100), false);
  });
});

describe('BackgroundRefresh', () => {
  it('retries a failed refresh after the back-off delays until one succeeds', async () => {
    const { schedule, timers, fireLast } = manualSchedule();
    const outcomes = [false, false, false, true];
    let attempts = 0;
    const refresh = new BackgroundRefresh(
      async () => {
        if (!outcomes[attempts++]) throw new Error('refused');
      },
      new Backoff({ initialMs: 2_000, maxMs: 5_000 }),
      schedule,
    );
    refresh.refreshIn(10_000);
    for (let i = 0; i < 4; i++) await fireLast();
    assert.equal(attempts, 4);
    assert.deepEqual(
      timers.map((t) => t.delayMs),
      [10_000, 2_000, 4_000, 5_000],
    );
  });

  it('keeps one renewal pending: a new one replaces it, stop() cancels it', () => {
    const { schedule, timers } = manualSchedule();
    const refresh = new BackgroundRefresh(async () => undefined, new Backoff({ initialMs: 1, maxMs: 1 }), schedule);
    refresh.refreshIn(100);
    refresh.refreshIn(50);
    assert.deepEqual(
      timers.map((t) => t.cancelled),
      [true, false],
    );
    refresh.stop();
    assert.equal(timers[1]!.cancelled, true);
  });
});
