import { consoleSessionDefaults, purgeDefaults } from '../config/defaults.ts';
import type { Store } from '../store/store.ts';
import { IDENTITY_INITIATE_LIMIT, IDENTITY_VERIFY_LIMIT, OPERATOR_LIMIT } from '../verification/deps.ts';

/** A rate-limit row is of use until its window ends; the longest window is the verify limit's hour. */
const LONGEST_RATE_WINDOW_MS = Math.max(OPERATOR_LIMIT.windowMs, IDENTITY_INITIATE_LIMIT.windowMs, IDENTITY_VERIFY_LIMIT.windowMs);

/** Rows deleted by one purge, by table. */
export type PurgedRows = Record<
  'rate_limits' | 'email_verifications' | 'console_sessions' | 'authn_attempts' | 'webauthn_challenges' | 'totp_enrolments' | 'second_factor_tickets',
  number
>;

/**
 * Deletes, once, every row that has outlived its use at `now` (besides expired tokens, which
 * purge.ts deletes in batches): rate-limit windows that have ended, verifications a day past
 * their expiry, console sessions past their end or idle timeout, ceremonies and tickets past
 * theirs, and the attempt counters of handles that named nobody, a week after their last
 * attempt. Without it these went only when someone signed in, or never: a table per stranger.
 * Each is one indexed DELETE; replicas purging at once is harmless.
 */
export async function purgeStaleRows(store: Store, now: number): Promise<PurgedRows> {
  return {
    rate_limits: await store.purgeRateLimits(now - LONGEST_RATE_WINDOW_MS),
    email_verifications: await store.purgeEmailVerifications(now - purgeDefaults.verificationKeptMs),
    console_sessions: await store.purgeConsoleSessions(now, now - consoleSessionDefaults.idleMs),
    authn_attempts: await store.purgeAuthnAttemptsOfNoOne(now - purgeDefaults.attemptsOfNoOneKeptMs),
    // The ceremonies' own sweeps at their start stay; this catches those nobody starts again.
    webauthn_challenges: await store.purgeExpiredWebAuthnChallenges(now),
    totp_enrolments: await store.purgeExpiredTotpEnrolments(now),
    second_factor_tickets: await store.purgeSecondFactorTickets(now),
  };
}

/**
 * Runs purgeStaleRows every `everyMs` (TESSERA_TOKEN_PURGE_INTERVAL, beside the token purge);
 * a purge still running when the next is due is not doubled. Returns a function that stops it.
 */
export function purgeStaleRowsEvery(store: Store, everyMs: number, onError: (error: unknown) => void, now: () => number = Date.now): () => void {
  let running = false;
  let stopped = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    purgeStaleRows(store, now())
      .catch((error: unknown) => {
        // A purge cut short by shutdown is not a failure; the next start-up's timer finishes it.
        if (!stopped) onError(error);
      })
      .finally(() => {
        running = false;
      });
  }, everyMs);
  timer.unref();
  return () => {
    stopped = true;
    clearInterval(timer);
  };
}
