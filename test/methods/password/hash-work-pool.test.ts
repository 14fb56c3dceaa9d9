import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { describe, it } from 'node:test';
import { ApiError } from '../../../src/errors/api-error.ts';
import { detachedJob } from '../../../src/methods/password/threads/hash-job.ts';
import { DEFAULT_HASH_THREAD_NICE, HashWorkPool } from '../../../src/methods/password/threads/hash-work-pool.ts';
import { slowHashJob } from '../../helpers/authn.ts';

const pbkdf2Job = (password: string) =>
  ({ kind: 'pbkdf2', digest: 'sha256', password: Buffer.from(password), salt: Buffer.from('salt'), iterations: 1000, keyLength: 32 }) as const;

/** The nice values of this process's threads (Linux: /proc/self/task/<tid>/stat, field 19). */
function threadNiceValues(): number[] {
  return readdirSync('/proc/self/task').map((tid) => {
    const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
  });
}

describe('HashWorkPool', () => {
  it('computes each job on a hash thread: pbkdf2 gives what crypto.pbkdf2 gives', async () => {
    const pool = new HashWorkPool({ concurrency: 1 });
    const { pbkdf2Sync } = await import('node:crypto');
    assert.deepEqual(Buffer.from(await pool.run(pbkdf2Job('pw'))), pbkdf2Sync('pw', 'salt', 1000, 32, 'sha256'));
    await pool.close();
  });

  it('refuses at once when the queue is full: 503 PASSWORD_CHECKS_BUSY with Retry-After, and accepts again after', async () => {
    const pool = new HashWorkPool({ concurrency: 1, maxQueued: 1, retryAfterSeconds: 2 });
    const running = pool.run(slowHashJob());
    const queued = pool.run(pbkdf2Job('queued'));
    await assert.rejects(pool.run(pbkdf2Job('refused')), (error: unknown) => {
      assert.ok(error instanceof ApiError);
      assert.deepEqual([error.code, error.status, error.headers], ['PASSWORD_CHECKS_BUSY', 503, { 'Retry-After': '2' }]);
      return true;
    });
    await Promise.all([running, queued]);
    assert.equal((await pool.run(pbkdf2Job('after'))).length, 32);
    await pool.close();
  });

  it('a job that fails on its thread rejects with the reason, and the thread serves the next job', async () => {
    const pool = new HashWorkPool({ concurrency: 1 });
    const bad = { ...slowHashJob(), inputs: { ...slowHashJob().inputs, memory: 1 } };
    await assert.rejects(pool.run(bad), /password hash failed/);
    assert.equal((await pool.run(pbkdf2Job('next'))).length, 32);
    assert.equal(pool.threads, 1);
    await pool.close();
  });

  it('runs its threads at a lower priority (nice 10) on Linux, and close() ends them', { skip: process.platform !== 'linux' && 'Linux only' }, async () => {
    const before = threadNiceValues().filter((nice) => nice === DEFAULT_HASH_THREAD_NICE).length;
    const pool = new HashWorkPool({ concurrency: 2 });
    await Promise.all([pool.run(pbkdf2Job('a')), pool.run(pbkdf2Job('b'))]);
    assert.equal(pool.threads, 2);
    assert.equal(threadNiceValues().filter((nice) => nice === DEFAULT_HASH_THREAD_NICE).length, before + 2);
    await pool.close();
    assert.equal(pool.threads, 0);
    assert.equal(threadNiceValues().filter((nice) => nice === DEFAULT_HASH_THREAD_NICE).length, before);
  });

  it('close() lets admitted jobs finish, refuses new ones with 503, then ends the threads', async () => {
    const pool = new HashWorkPool({ concurrency: 1, maxQueued: 4 });
    const running = pool.run(slowHashJob());
    const queued = pool.run(pbkdf2Job('queued'));
    const closed = pool.close();
    await assert.rejects(pool.run(pbkdf2Job('late')), (error: unknown) => error instanceof ApiError && error.code === 'PASSWORD_CHECKS_BUSY');
    assert.equal((await running).length, 32);
    assert.equal((await queued).length, 32);
    await closed;
    assert.equal(pool.threads, 0);
  });

  it('defaults to the available cores and a queue of 16 per slot, and refuses nonsense settings', () => {
    const pool = new HashWorkPool();
    assert.equal(pool.concurrency, availableParallelism());
    assert.equal(pool.maxQueued, 16 * availableParallelism());
    assert.throws(() => new HashWorkPool({ concurrency: 0 }), RangeError);
    assert.throws(() => new HashWorkPool({ maxQueued: -1 }), RangeError);
    assert.throws(() => new HashWorkPool({ nice: 20 }), RangeError);
  });

  it("regression: a hash job carried the whole 64 KiB Buffer slab to the thread, with other requests' passwords in it", async () => {
    const pooled = Buffer.from('pw');
    assert.ok(pooled.buffer.byteLength > 1024, 'a small Buffer is a view on a shared slab');
    const { job, transfer } = detachedJob({ ...pbkdf2Job('x'), password: pooled });
    assert.equal((job as { password: Uint8Array }).password.buffer.byteLength, 2, 'only its own bytes go');
    assert.deepEqual(
      transfer.map((buffer) => buffer.byteLength),
      [2, 4],
    );
    assert.equal(pooled.toString(), 'pw', "the caller's bytes stay as they were");
    const pool = new HashWorkPool({ concurrency: 1 });
    const digest = await pool.run({ kind: 'bcrypt', password: Buffer.from('pw'), settings: '$2b$04$abcdefghijklmnopqrstuu' });
    assert.equal(digest.buffer.byteLength, digest.length, 'and only the answer comes back');
    await pool.close();
  });
});
