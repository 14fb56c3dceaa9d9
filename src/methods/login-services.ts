import { AttemptLimiter } from '../authn/attempt-limiter.ts';
import { type AttemptMetrics, unreportedAttempts } from '../authn/attempt-metrics.ts';
import { LoginFlow } from '../authn/login-flow.ts';
import { LoginsPerSource } from '../authn/logins-per-source.ts';
import type { SecondFactorDeps } from '../authn/second-factor.ts';
import { DEFAULT_FAILURE_TIME_MS } from '../config/defaults.ts';
import type { CredentialTypeContext } from '../credentials/credential-type.ts';
import type { TokenIssuer } from '../oauth/tokens/issuer.ts';
import type { OrganizationStore } from '../store/organizations/store.ts';
import { HashWorkPool, type PasswordHashPolicy } from './password/index.ts';
import type { PasswordLoginDeps } from './password/login-routes.ts';
import type { TotpEnrolmentDeps } from './totp/enrolment-flow.ts';
import type { TotpLoginDeps } from './totp/login-routes.ts';

/** What the logins read and write: the flow and its limiter, second-factor tickets, TOTP enrolments, the organisation a login names. */
export type LoginStore = OrganizationStore & SecondFactorDeps['store'] & TotpEnrolmentDeps['store'];

export interface LoginServiceOptions {
  store: LoginStore;
  issuer: TokenIssuer;
  context: CredentialTypeContext;
  now: () => number;
  /** Where password-hash work runs; by default a pool of hashThreads threads, closed by close(). */
  pool?: HashWorkPool;
  /** Threads of the default pool; default one per core (with several workers, each takes its share). */
  hashThreads?: number;
  /** Password logins in flight at once from one client address (0: no bound); default 4. */
  loginsPerSource?: number;
  /** How long after it began a password failure is answered (failure-time.ts); default DEFAULT_FAILURE_TIME_MS. */
  failureTimeMs?: number;
  policy?: PasswordHashPolicy;
  /** Where what the audit log does not keep is counted: strangers' attempts and refusals. */
  attemptMetrics?: AttemptMetrics;
}

/**
 * What every door that checks a password or a code shares: the API's /authn/… and the
 * console's sign-in go through one flow, one hashing pool and one per-address bound, so a
 * guess counts toward the same lockout whichever door it came through.
 */
export interface LoginServices extends PasswordLoginDeps, TotpLoginDeps {
  store: LoginStore;
  /** How long after it began a failure is answered (authn/failure-time.ts): what a door that is no login, such as an invitation link, waits on a miss too. */
  failureTimeMs: number;
  /** Ends the pool's threads when it was made here; a pool passed in belongs to whoever made it. */
  close(): Promise<void>;
}

export function loginServices({
  store,
  issuer,
  context,
  now,
  pool: given,
  hashThreads,
  loginsPerSource = 4,
  failureTimeMs,
  policy,
  attemptMetrics,
}: LoginServiceOptions): LoginServices {
  const pool = given ?? new HashWorkPool(hashThreads === undefined ? {} : { concurrency: hashThreads });
  return {
    store,
    flow: new LoginFlow({
      store,
      limiter: new AttemptLimiter(store, now, attemptMetrics),
      hashCode: context.hashCode,
      now,
      metrics: attemptMetrics,
      ...(failureTimeMs === undefined ? {} : { failureTimeMs }),
    }),
    issuer,
    pool,
    perSource: new LoginsPerSource(loginsPerSource),
    failureTimeMs: failureTimeMs ?? DEFAULT_FAILURE_TIME_MS,
    context,
    policy,
    now,
    attemptMetrics: attemptMetrics ?? unreportedAttempts,
    close: async () => {
      if (!given) await pool.close();
    },
  };
}
