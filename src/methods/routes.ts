import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { AttemptLimiter } from '../authn/attempt-limiter.ts';
import { type AttemptMetrics, unreportedAttempts } from '../authn/attempt-metrics.ts';
import { LoginFlow } from '../authn/login-flow.ts';
import { LoginsPerSource } from '../authn/logins-per-source.ts';
import type { CredentialTypeContext } from '../credentials/credential-type.ts';
import type { TokenIssuer } from '../oauth/tokens/issuer.ts';
import type { TokenReader } from '../oauth/tokens/reader.ts';
import type { Store } from '../store/store.ts';
import { loginRoutes } from './login-routes.ts';
import { HashWorkPool, type PasswordHashPolicy } from './password/index.ts';
import { enrolmentRoutes } from './totp/enrolment-routes.ts';

export interface LoginServiceOptions {
  store: Store;
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
export interface LoginServices {
  store: Store;
  flow: LoginFlow;
  issuer: TokenIssuer;
  pool: HashWorkPool;
  perSource: LoginsPerSource;
  context: CredentialTypeContext;
  policy: PasswordHashPolicy | undefined;
  now: () => number;
  attemptMetrics: AttemptMetrics;
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
    context,
    policy,
    now,
    attemptMetrics: attemptMetrics ?? unreportedAttempts,
    close: async () => {
      if (!given) await pool.close();
    },
  };
}

/** The authentication challenges (POST /authn/…): one plugin, so app.ts registers it in one line. */
export function authnRoutes(services: LoginServices, reader: TokenReader): FastifyPluginAsyncTypebox {
  const { store, flow, issuer, pool, perSource, context, now, policy, attemptMetrics } = services;
  return async (app) => {
    await app.register(enrolmentRoutes(store, reader, { store, context, now }));
    await app.register(loginRoutes({ store, flow, issuer, pool, perSource, context, now, attemptMetrics, ...(policy ? { policy } : {}) }));
  };
}
