import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BoundedAdmission } from '../../src/concurrency/bounded-admission.ts';

/** A job that finishes when the test says so. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, job: async () => opened };
}

const refuse = () => new Error('full');

describe('BoundedAdmission', () => {
  it('runs at most `concurrency` jobs at once and starts queued ones in order as slots free', async () => {
    const admission = new BoundedAdmission({ concurrency: 2, maxQueued: 5, refuse });
    const gates = Array.from({ length: 5 }, gate);
    const started: number[] = [];
    const runs = gates.map((g, i) =>
      admission.run(async () => {
        started.push(i);
        await g.job();
        return i;
      }),
    );
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(started, [0, 1]);
    assert.equal(admission.running, 2);
    assert.equal(admission.queued, 3);
    gates[1]!.open();
    await runs[1];
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(started, [0, 1, 2]);
    for (const g of gates) g.open();
    assert.deepEqual(await Promise.all(runs), [0, 1, 2, 3, 4]);
    assert.equal(admission.running, 0);
    assert.equal(admission.queued, 0);
  });

  it('refuses at once with the given error when the queue is full, and accepts again once there is room', async () => {
    const admission = new BoundedAdmission({ concurrency: 1, maxQueued: 1, refuse });
    const g = gate();
    const running = admission.run(g.job);
    const queued = admission.run(async () => 'queued');
    await assert.rejects(
      admission.run(async () => 'refused'),
      /full/,
    );
    g.open();
    await running;
    assert.equal(await queued, 'queued');
    assert.equal(await admission.run(async () => 'after'), 'after');
  });

  it('frees the slot when a job fails', async () => {
    const admission = new BoundedAdmission({ concurrency: 1, maxQueued: 0, refuse });
    await assert.rejects(
      admission.run(async () => {
        throw new Error('hash failed');
      }),
      /hash failed/,
    );
    assert.equal(await admission.run(async () => 1), 1);
  });

  it('drained() resolves once the running and queued jobs are done', async () => {
    const admission = new BoundedAdmission({ concurrency: 1, maxQueued: 1, refuse });
    await admission.drained();
    const g = gate();
    const done: string[] = [];
    void admission.run(async () => {
      await g.job();
      done.push('first');
    });
    void admission.run(async () => done.push('queued'));
    const drained = admission.drained().then(() => done.push('drained'));
    g.open();
    await drained;
    assert.deepEqual(done, ['first', 'queued', 'drained']);
  });

  it('refuses nonsense sizes', () => {
    assert.throws(() => new BoundedAdmission({ concurrency: 0, maxQueued: 1, refuse }), RangeError);
    assert.throws(() => new BoundedAdmission({ concurrency: 1, maxQueued: -1, refuse }), RangeError);
    assert.throws(() => new BoundedAdmission({ concurrency: 1.5, maxQueued: 1, refuse }), RangeError);
  });
});
