/** What a rate-limited caller asks: one more event of `key`, under `limit` per window. */
export interface RateLimitRequest {
  orgId: string;
  /** What is counted, e.g. `verify-operator:<keyed hash of the operator's email>`. */
  key: string;
  now: number;
  windowMs: number;
  limit: number;
}

export type RateLimitOutcome =
  | { allowed: true; count: number }
  /** `retryAfterMs`: until the window ends. */
  | { allowed: false; count: number; retryAfterMs: number };

/**
 * Fixed-window counters kept in the database, so that every replica counts against the same
 * limit. A window starts with the first event after the previous one ended. Refused events
 * are counted too: hammering does not shorten the wait, and the window still ends on time.
 */
export interface RateLimitStore {
  /** Counts one event in one statement; of concurrent callers at most `limit` per window are allowed. */
  takeRateLimit(request: RateLimitRequest): Promise<RateLimitOutcome>;
  /** Removes at most `limit` counters whose window started before `before`; returns how many. */
  purgeRateLimits(before: number, limit: number): Promise<number>;
}
