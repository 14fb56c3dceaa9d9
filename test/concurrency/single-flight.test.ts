import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SingleFlight, SingleFlightOne } from '../../src/concurrency/single-flight.ts';

function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

describe('SingleFlight', () => {
  it('shares one run among concurrent callers of a key', async () => {
    const flight = new SingleFlight<string, number>();
    const gate = deferred<number>();
    let runs = 0;
    const work = () => (runs++, gate.promise);
    const calls = [flight.run('a', work), flight.run('a', work), flight.run('a', work)];
    assert.equal(flight.current('a'), calls[0]);
    gate.resolve(7);
    assert.deepEqual(await Promise.all(calls), [7, 7, 7]);
    assert.equal(runs, 1);
  });

  it('runs different keys separately', async () => {
    const flight = new SingleFlight<string, string>();
    assert.deepEqual(await Promise.all([flight.run('a', async () => 'A'), flight.run('b', async () => 'B')]), ['A', 'B']);
  });

  it('gives every waiting caller the failure, then starts afresh', async () => {
    const flight = new SingleFlight<string, number>();
    const gate = deferred<number>();
    const first = flight.run('a', () => gate.promise);
    const second = flight.run('a', async () => 99);
    gate.reject(new Error('down'));
    await assert.rejects(first, /down/);
    await assert.rejects(second, /down/);
    assert.equal(flight.current('a'), undefined);
    assert.equal(await flight.run('a', async () => 2), 2);
  });

  it('starts a new run once the last one has settled', async () => {
    const flight = new SingleFlightOne<number>();
    let runs = 0;
    await flight.run(async () => ++runs);
    assert.equal(await flight.run(async () => ++runs), 2);
  });
});
