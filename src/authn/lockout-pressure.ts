import { recordEvent } from '../store/audit/record-event.ts';
import type { AttemptCounter } from '../store/authn/store.ts';
import type { TransactionalStore } from '../store/store.ts';
import { MAX_CONSECUTIVE_FAILURES } from './attempt-policy.ts';

/**
 * Counts at which a handle's failures are worth an administrator's notice: the lock is at
 * MAX_CONSECUTIVE_FAILURES, and anyone who knows a handle can push it there (about 21 h with
 * the delays), so the way up is reported, once per crossing.
 */
export const PRESSURE_THRESHOLDS = [10, 50, MAX_CONSECUTIVE_FAILURES] as const;

/** The threshold a counter reaches when its count becomes `count`, if any. */
export function thresholdReachedAt(count: number): number | undefined {
  return PRESSURE_THRESHOLDS.find((threshold) => threshold === count);
}

/**
 * Counts the attempt that brings a person's counter to `threshold` and records
 * `authn.lockout_pressure` in the same transaction: of racing attempts only the one whose
 * compare-and-set wins writes the event, and no count goes without it. No handle value, only
 * the person, the credential type and the threshold.
 */
export function countCrossingOfPerson(
  store: TransactionalStore,
  counter: AttemptCounter & { personId: string },
  expectedFailures: number,
  at: number,
  threshold: number,
): Promise<boolean> {
  return store.inTransaction(async (tx) => {
    if (!(await tx.countAuthnAttemptIf(counter, expectedFailures, at))) return false;
    await recordEvent(tx, at, counter.orgId, 'authn.lockout_pressure', {
      person_id: counter.personId,
      credential_type: counter.credentialType,
      failures: threshold,
      locks_at: MAX_CONSECUTIVE_FAILURES,
    });
    return true;
  });
}
