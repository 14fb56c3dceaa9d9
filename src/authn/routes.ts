import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { CredentialTypeContext } from '../credentials/credential-type.ts';
import { HashWorkPool, type PasswordHashPolicy } from '../credentials/password/index.ts';
import type { TokenIssuer } from '../oauth/tokens/issuer.ts';
import type { TokenReader } from '../oauth/tokens/reader.ts';
import type { Store } from '../store/store.ts';
import { AttemptLimiter } from './attempt-limiter.ts';
import { attemptRoutes } from './attempt-routes.ts';
import { enrolmentRoutes } from './enrolment-routes.ts';
import { LoginFlow } from './login-flow.ts';
import { loginRoutes } from './login-routes.ts';
import { LoginsPerSource } from './logins-per-source.ts';

export interface AuthnRouteOptions {
  store: Store;
  issuer: TokenIssuer;
  /** Reads the person JWT that enrols a factor for its own person. */
  reader: TokenReader;
  context: CredentialTypeContext;
  now: () => number;
  /** Where password-hash work runs; by default a pool of hashThreads threads, closed with the app. */
  pool?: HashWorkPool;
  /** Threads of the default pool; default one per core (with several workers, each takes its share). */
  hashThreads?: number;
  /** Password logins in flight at once from one client address (0: no bound); default 4. */
  loginsPerSource?: number;
  policy?: PasswordHashPolicy;
}

/** The authentication challenges (POST /authn/…): one plugin, so app.ts registers it in one line. */
export function authnRoutes({
  store,
  issuer,
  reader,
  context,
  now,
  pool: given,
  hashThreads,
  loginsPerSource = 4,
  policy,
}: AuthnRouteOptions): FastifyPluginAsyncTypebox {
  const flow = new LoginFlow({ store, limiter: new AttemptLimiter(store, now), issuer, hashCode: context.hashCode, now });
  return async (app) => {
    const pool = given ?? new HashWorkPool(hashThreads === undefined ? {} : { concurrency: hashThreads });
    // Its threads end with the app; a pool passed in belongs to whoever made it.
    if (!given) app.addHook('onClose', () => pool.close());
    await app.register(enrolmentRoutes(store, reader, { store, context, now }));
    await app.register(attemptRoutes(store, now, context.hashCode));
    const perSource = new LoginsPerSource(loginsPerSource);
    await app.register(loginRoutes({ store, flow, pool, perSource, context, now, ...(policy ? { policy } : {}) }));
  };
}
