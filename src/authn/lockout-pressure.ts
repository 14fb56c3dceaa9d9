import { Counter, type Registry } from 'prom-client';
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
 * Where a crossing by a handle that names no one goes: a metric, never the audit log, which
 * strangers could otherwise grow at will by guessing at made-up handles.
 */
export interface StrangerPressure {
  crossed(threshold: number): void;
}

/** tessera_authn_lockout_pressure_total{threshold} in the app's registry (GET /metrics). */
export function strangerPressureMetric(registry: Registry, prefix = 'tessera_'): StrangerPressure {
  const crossings = new Counter({
    name: `${prefix}authn_lockout_pressure_total`,
    help: 'Attempt counters of handles that name no one reaching 10, 50 or 100 consecutive failures',
    labelNames: ['threshold'] as const,
    registers: [registry],
  });
  return { crossed: (threshold) => crossings.inc({ threshold: String(threshold) }) };
}

/** For a limiter with no metrics to report to (tests of the limiter alone). */
export const unreportedStrangerPressure: StrangerPressure = { crossed: () => {} };

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
