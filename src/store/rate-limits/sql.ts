import { time } from '../rows.ts';
import type { SqlDriver } from '../sql-driver.ts';
import type { RateLimitOutcome, RateLimitStore } from './store.ts';

/** The rate-limit store over either SQL dialect: table rate_limits. */
export function sqlRateLimitStore(db: SqlDriver): RateLimitStore {
  return {
    async takeRateLimit({ orgId, key, now, windowMs, limit }): Promise<RateLimitOutcome> {
      // One upsert: a first event inserts (a racing insert turns into the update), a later one
      // either starts a new window (the old one has ended) or counts in the current one.
      const [row] = await db.all<{ window_start: number | string; hits: number | string }>(
        `INSERT INTO rate_limits (org_id, subject, window_start, hits) VALUES ($1, $2, $3, 1)
         ON CONFLICT (org_id, subject) DO UPDATE SET
           window_start = CASE WHEN rate_limits.window_start <= $4 THEN $3 ELSE rate_limits.window_start END,
           hits = CASE WHEN rate_limits.window_start <= $4 THEN 1 ELSE rate_limits.hits + 1 END
         RETURNING window_start, hits`,
        [orgId, key, now, now - windowMs],
      );
      const count = Number(row!.hits);
      if (count <= limit) return { allowed: true, count };
      return { allowed: false, count, retryAfterMs: Math.max(1, time(row!.window_start) + windowMs - now) };
    },

    purgeRateLimits(before, limit): Promise<number> {
      return db.run('DELETE FROM rate_limits WHERE (org_id, subject) IN (SELECT org_id, subject FROM rate_limits WHERE window_start < $1 LIMIT $2)', [
        before,
        limit,
      ]);
    },
  };
}
