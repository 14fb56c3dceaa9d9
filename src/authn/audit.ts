import { recordEvent } from '../store/audit/record-event.ts';
import type { AuditStore } from '../store/audit/store.ts';
import type { AttemptMetrics } from './attempt-metrics.ts';
import type { AttemptRecordInput } from './attempt-record.ts';

/** Refusals before any secret was judged: the attempt limiter's 429, a full hashing queue, a failure of ours. */
const REFUSED_UNJUDGED: ReadonlySet<string> = new Set(['too_many_attempts', 'busy', 'error']);

/**
 * Records an `authn.attempt` audit event, stamped with the app's clock (the same one the
 * token's iat and the attempt limiter use). The fields are typed so that no secret, code or
 * handle value has a place to go.
 *
 * Only what a person's own handle or ticket was judged for is kept: an attempt that named no one,
 * or was refused before any secret was judged (a 429, a full hashing queue), is a metric
 * (attempt-metrics.ts). Strangers could otherwise grow the log at will, a row per guess at a
 * made-up handle or per request at a locked one; the judged attempts of a person are bounded by
 * their attempt limits.
 */
export async function recordAuthnAttempt(store: AuditStore, now: () => number, attempt: AttemptRecordInput, metrics: AttemptMetrics): Promise<void> {
  if (attempt.personId === null || (attempt.outcome === 'refused' && REFUSED_UNJUDGED.has(attempt.reason ?? ''))) return metrics.unaudited(attempt);
  const at = now();
  await recordEvent(store, at, attempt.orgId, 'authn.attempt', {
    method: attempt.method,
    person_id: attempt.personId,
    credential_id: attempt.credentialId,
    outcome: attempt.outcome,
    reason: attempt.reason,
  });
}
