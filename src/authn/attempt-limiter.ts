import { ApiError } from '../errors/api-error.ts';
import type { AttemptCounter, AuthnAttemptStore } from '../store/authn/store.ts';
import type { TransactionalStore } from '../store/store.ts';
import { type AttemptMetrics, unreportedAttempts } from './attempt-metrics.ts';
import { decideAttempt, MAX_CONSECUTIVE_FAILURES } from './attempt-policy.ts';
import { countCrossingOfPerson, thresholdReachedAt } from './lockout-pressure.ts';

/** What a caller does with an attempt it was allowed to make: report how it ended, once. */
export interface AttemptTicket {
  /** The secret was right: the count starts again. */
  succeeded(): Promise<void>;
  /** The secret was wrong: the attempt stays counted (it was counted when allowed). */
  failed(): Promise<void>;
  /** No secret was tested (the hashing queue was full, the store failed): take the attempt back. */
  abandoned(): Promise<void>;
}

/** A lost race is retried from a fresh read this often; each loss means another attempt was counted. */
const MAX_RACES = 3;

/**
 * Limits authentication attempts per subject (a person id, or unknownHandleSubject for a
 * handle that names nobody) by attempt-policy.ts, with its state in the store: shared by
 * replicas, kept across restarts. An attempt is counted *before* the secret is tested, by a
 * compare-and-set on the count just read, so concurrent attempts cannot exceed the policy.
 * A count that reaches 10, 50 or 100 is reported (lockout-pressure.ts): an audit event for a
 * handle that names a person, `metrics` for one that names no one.
 */
export class AttemptLimiter {
  readonly #store: AuthnAttemptStore & TransactionalStore;
  readonly #now: () => number;
  readonly #metrics: AttemptMetrics;

  constructor(store: AuthnAttemptStore & TransactionalStore, now: () => number, metrics: AttemptMetrics = unreportedAttempts) {
    this.#store = store;
    this.#now = now;
    this.#metrics = metrics;
  }

  /** Counts an attempt and returns its ticket, or throws 429 TOO_MANY_ATTEMPTS. */
  async begin(counter: AttemptCounter): Promise<AttemptTicket> {
    const { orgId, subject } = counter;
    for (let race = 0; ; race++) {
      const record = await this.#store.getAuthnAttempts(orgId, subject);
      const at = this.#now();
      const decision = decideAttempt(record, at);
      if (decision.kind === 'locked') throw lockedOut();
      if (decision.kind === 'wait') throw tooEarly(decision.retryAfterMs);
      if (await this.#count(counter, record?.failures ?? 0, at)) return this.#ticket(orgId, subject);
      if (race + 1 >= MAX_RACES) throw tooEarly(1000);
    }
  }

  /** The compare-and-set; when it reaches a threshold, with its report. */
  async #count(counter: AttemptCounter, expected: number, at: number): Promise<boolean> {
    const threshold = thresholdReachedAt(expected + 1);
    if (threshold === undefined) return this.#store.countAuthnAttemptIf(counter, expected, at);
    const { personId } = counter;
    if (personId !== null) return countCrossingOfPerson(this.#store, { ...counter, personId }, expected, at, threshold);
    const counted = await this.#store.countAuthnAttemptIf(counter, expected, at);
    if (counted) this.#metrics.pressureOfNoOne(threshold);
    return counted;
  }

  #ticket(orgId: string, subject: string): AttemptTicket {
    let settled = false;
    const once = (action: () => Promise<void>) => async () => {
      if (settled) return;
      settled = true;
      await action();
    };
    return {
      succeeded: once(() => this.#store.clearAuthnAttempts(orgId, subject)),
      failed: once(async () => {}),
      abandoned: once(() => this.#store.uncountAuthnAttempt(orgId, subject)),
    };
  }
}

function tooEarly(retryAfterMs: number): ApiError {
  const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
  return new ApiError('TOO_MANY_ATTEMPTS', `authentication: too many failed attempts; retry after ${seconds} s`, { 'retry-after': String(seconds) });
}

function lockedOut(): ApiError {
  return new ApiError(
    'TOO_MANY_ATTEMPTS',
    `authentication: locked after ${MAX_CONSECUTIVE_FAILURES} consecutive failed attempts with this handle and credential type; an administrator of the organisation can reset it (DELETE /persons/{person_id}/authn-attempts)`,
  );
}
