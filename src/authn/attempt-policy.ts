import type { AttemptRecord } from '../store/authn/store.ts';

/**
 * How many authentication attempts a subject gets (issue 11 §6, NIST SP 800-63B §5.2.2):
 * FREE_ATTEMPTS without delay, then each further attempt only after a delay that doubles
 * with every failure, from one second up to MAX_DELAY_MS, and after MAX_CONSECUTIVE_FAILURES
 * failures none at all until an administrator resets the count. A success resets it.
 *
 * At the cap, 100 failures take about 21 hours to reach (85 of them 15 minutes apart), so an
 * online guesser gets about 100 guesses per subject, while a person who mistypes a few times
 * waits seconds. Every attempt is counted before its secret is tested (attempt-limiter.ts).
 */
export const FREE_ATTEMPTS = 5;
export const MAX_CONSECUTIVE_FAILURES = 100;
export const MAX_DELAY_MS = 15 * 60 * 1000;

/** The wait after `failures` counted attempts before the next may be made. */
export function delayAfter(failures: number): number {
  if (failures < FREE_ATTEMPTS) return 0;
  // 2^(n-5) s; past 2^10 s the cap applies anyway, and the exponent stays small.
  return Math.min(2 ** Math.min(failures - FREE_ATTEMPTS, 10) * 1000, MAX_DELAY_MS);
}

export type AttemptDecision = { kind: 'allowed' } | { kind: 'wait'; retryAfterMs: number } | { kind: 'locked' };

/** Whether an attempt may be made at `now`, given what the store holds (undefined: none counted). */
export function decideAttempt(record: AttemptRecord | undefined, now: number): AttemptDecision {
  if (!record) return { kind: 'allowed' };
  if (record.failures >= MAX_CONSECUTIVE_FAILURES) return { kind: 'locked' };
  const earliest = record.lastAttemptAt + delayAfter(record.failures);
  return now >= earliest ? { kind: 'allowed' } : { kind: 'wait', retryAfterMs: earliest - now };
}
