import { ApiError } from '../../errors/api-error.ts';
import { sourceOf } from '../../runtime/client-source.ts';
import type { RateLimitStore } from '../../store/rate-limits/store.ts';

/**
 * Login ceremonies one client address may start per minute in an organisation. Each start
 * stores a challenge for 5 minutes, and needs no credential: without a bound one address stored
 * 3,700 a second. A person signing in starts one or two; a team behind one address, a few dozen.
 */
export const LOGIN_CEREMONIES_PER_SOURCE = Object.freeze({ windowMs: 60_000, limit: 60 });

/** Counts one login ceremony started from `source` (the client address, request.ip); 429 past the bound. */
export async function admitLoginCeremony(store: RateLimitStore, orgId: string, source: string, now: number): Promise<void> {
  // An IPv6 client picks its address freely within its /64: that prefix is the source.
  const outcome = await store.takeRateLimit({ orgId, key: `webauthn-login:${sourceOf(source)}`, now, ...LOGIN_CEREMONIES_PER_SOURCE });
  if (outcome.allowed) return;
  const seconds = Math.max(1, Math.ceil(outcome.retryAfterMs / 1000));
  throw new ApiError(
    'TOO_MANY_CEREMONIES',
    `passkey: more than ${LOGIN_CEREMONIES_PER_SOURCE.limit} login ceremonies a minute from this address; retry in ${seconds} s`,
    { 'retry-after': String(seconds) },
  );
}
