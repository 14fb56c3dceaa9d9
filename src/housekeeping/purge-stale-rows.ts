import { every } from '../concurrency/every.ts';
import { deleteInBatches } from '../concurrency/in-batches.ts';
import { consoleSessionDefaults, purgeDefaults } from '../config/defaults.ts';
import type { PurgedTable, Store } from '../store/store.ts';
import { IDENTITY_INITIATE_LIMIT, IDENTITY_VERIFY_LIMIT, OPERATOR_LIMIT } from '../verification/deps.ts';

/** A rate-limit row is of use until its window ends; the longest window is the verify limit's hour. */
const LONGEST_RATE_WINDOW_MS = Math.max(OPERATOR_LIMIT.windowMs, IDENTITY_INITIATE_LIMIT.windowMs, IDENTITY_VERIFY_LIMIT.windowMs);

/** Rows deleted by one purge, by table. */
export type PurgedRows = Record<Exclude<PurgedTable, 'tokens'>, number>;

/**
 * Deletes, once, every row that has outlived its use at `now` (besides expired tokens, which
 * purge.ts deletes in batches): rate-limit windows that have ended, verifications a day past
 * their expiry, console sessions past their end or idle timeout, ceremonies, tickets and invitations
 * past theirs, client assertions' spent jtis once the assertion expired, and the attempt counters of handles that named nobody, a week after their last
 * attempt. Without it these went only when someone signed in, or never: a table per stranger.
 * Each deletes in bounded batches over an index, resting between them (concurrency/in-batches.ts);
 * replicas purging at once is harmless.
 */
export async function purgeStaleRows(store: Store, now: number, stopped: () => boolean = () => false): Promise<PurgedRows> {
  const batches = (deleteBatch: (limit: number) => Promise<number>) => deleteInBatches(deleteBatch, stopped);
  return {
    rate_limits: await batches((limit) => store.purgeRateLimits(now - LONGEST_RATE_WINDOW_MS, limit)),
    email_verifications: await batches((limit) => store.purgeEmailVerifications(now - purgeDefaults.verificationKeptMs, limit)),
    console_sessions: await batches((limit) => store.purgeConsoleSessions(now, now - consoleSessionDefaults.idleMs, limit)),
    authn_attempts: await batches((limit) => store.purgeAuthnAttemptsOfNoOne(now - purgeDefaults.attemptsOfNoOneKeptMs, limit)),
    // The ceremonies' own sweeps at their start stay (bounded, SWEEP_LIMIT); this takes the rest.
    webauthn_challenges: await batches((limit) => store.purgeExpiredWebAuthnChallenges(now, limit)),
    totp_enrolments: await batches((limit) => store.purgeExpiredTotpEnrolments(now, limit)),
    second_factor_tickets: await batches((limit) => store.purgeSecondFactorTickets(now, limit)),
    invitations: await batches((limit) => store.purgeInvitations(now, limit)),
    client_assertion_jtis: await batches((limit) => store.purgeClientAssertions(now, limit)),
  };
}

/** Runs purgeStaleRows every `everyMs` (TESSERA_TOKEN_PURGE_INTERVAL, beside the token purge). Returns a function that stops it. */
export function purgeStaleRowsEvery(store: Store, everyMs: number, onError: (error: unknown) => void, now: () => number = Date.now): () => void {
  return every(everyMs, (stopped) => purgeStaleRows(store, now(), stopped), onError);
}
