import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HashWorkPool, hashPassword, OWASP_ARGON2ID_POLICY, passwordChecksBusy } from '../../../src/methods/password/index.ts';
import { passwordMethod } from '../../../src/methods/password/login.ts';
import type { HashJob } from '../../../src/methods/password/threads/hash-job.ts';
import type { Credential } from '../../../src/store/credentials/store.ts';

/** A real pool that also counts the hash jobs it ran: the work a failed login costs. */
class CountingPool extends HashWorkPool {
  jobs = 0;
  override run(job: HashJob): Promise<Uint8Array> {
    this.jobs++;
    return super.run(job);
  }
}

const credential = (hash: string): Credential => ({
  id: 'crd_1',
  orgId: 'org_1',
  personId: 'per_1',
  type: 'password',
  label: null,
  params: { password_hash: hash },
  secret: { password_hash: hash },
  version: 0,
  lastUsed: null,
  createdAt: 0,
});
// htpasswd -bnBC 5 ada 'correct horse' (apache2-utils): far cheaper than the policy.
const LEGACY = '$2y$05$UQeaV.UoUerfCtXgzU20DOaPmC4S3BMmyN8ihgm98kxvt4jC7qzHO';

describe('Password logins: the cost of a wrong password', () => {
  const failedLoginJobs = async (hash: string) => {
    const pool = new CountingPool();
    const method = passwordMethod('wrong guess', { store: {} as never, pool, now: Date.now });
    assert.equal((await method.check('org_1', [credential(hash)])).kind, 'failure');
    return pool.jobs;
  };

  it('regression: a wrong password against a cheap imported hash answered sooner, telling who still has one', async () => {
    const policyHash = await hashPassword('correct horse', new HashWorkPool(), OWASP_ARGON2ID_POLICY);
    assert.equal(await failedLoginJobs(policyHash), 1, 'a policy-strength hash: its own check is the policy cost');
    assert.equal(await failedLoginJobs(LEGACY), 2, 'a legacy hash: its check, then one at the policy cost');
  });

  it('regression: a wrong guess against a legacy hash went uncounted when the queue filled before the policy-cost check', async () => {
    // The real check judges the guess, then the queue is full for the padding check: a pool
    // whose second job is refused, as a burst from other callers would make it.
    class SecondJobRefused extends HashWorkPool {
      jobs = 0;
      override run(job: HashJob): Promise<Uint8Array> {
        this.jobs++;
        return this.jobs === 2 ? Promise.reject(passwordChecksBusy(1)) : super.run(job);
      }
    }
    const pool = new SecondJobRefused();
    const method = passwordMethod('wrong guess', { store: {} as never, pool, now: Date.now });
    assert.deepEqual(await method.check('org_1', [credential(LEGACY)]), { kind: 'failure', reason: 'wrong_secret' }, 'a judged guess is a failure, counted');
    const refused = new SecondJobRefused();
    refused.jobs = 1;
    await assert.rejects(
      passwordMethod('any', { store: {} as never, pool: refused, now: Date.now }).check('org_1', [credential(LEGACY)]),
      /too many password checks/,
      'nothing judged yet: the busy answer stands',
    );
  });
});
