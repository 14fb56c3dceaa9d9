import { Counter, type Registry } from 'prom-client';
import type { AttemptRecordInput } from './attempt-record.ts';

/**
 * What the login steps report to GET /metrics instead of the audit log: whatever a stranger can
 * cause at will, so that guessing at made-up handles, or hammering a locked one, never grows the
 * log. The log keeps what a person's own handle was judged for (audit.ts).
 */
export interface AttemptMetrics {
  /** An attempt counter of a handle that names no one reached 10, 50 or 100 failures (lockout-pressure.ts). */
  pressureOfNoOne(threshold: number): void;
  /** An attempt the audit log does not keep: it named no one, or it was refused before any secret was judged. */
  unaudited(attempt: Pick<AttemptRecordInput, 'method' | 'outcome' | 'reason'>): void;
}

/** tessera_authn_lockout_pressure_total{threshold} and tessera_authn_attempts_unaudited_total{method,outcome,reason}. */
export function attemptMetrics(registry: Registry, prefix = 'tessera_'): AttemptMetrics {
  const crossings = new Counter({
    name: `${prefix}authn_lockout_pressure_total`,
    help: 'Attempt counters of handles that name no one reaching 10, 50 or 100 consecutive failures',
    labelNames: ['threshold'] as const,
    registers: [registry],
  });
  const unaudited = new Counter({
    name: `${prefix}authn_attempts_unaudited_total`,
    help: 'Authentication attempts that named no person, or were refused before a secret was judged (not in the audit log)',
    labelNames: ['method', 'outcome', 'reason'] as const,
    registers: [registry],
  });
  return {
    pressureOfNoOne: (threshold) => crossings.inc({ threshold: String(threshold) }),
    // Every label value is a word of our own (audit.ts), never input: the series stay few.
    unaudited: ({ method, outcome, reason }) => unaudited.inc({ method, outcome, reason: reason ?? '' }),
  };
}

/** For code run without an app's registry (tests of the limiter alone). */
export const unreportedAttempts: AttemptMetrics = { pressureOfNoOne: () => {}, unaudited: () => {} };
