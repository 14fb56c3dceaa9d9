import type { TokenIssuer } from '../oauth/tokens/issuer.ts';
import type { OrganizationStore } from '../store/organizations/store.ts';
import type { AttemptMetrics } from './attempt-metrics.ts';
import type { LoginFlow } from './login-flow.ts';
import type { LoginsPerSource } from './logins-per-source.ts';
import type { SecondFactorDeps } from './second-factor.ts';

/**
 * What every login route of a method (methods/…/login-routes.ts) shares with the others: the one
 * flow, per-address bound and metrics, so a guess counts alike whichever route it came through.
 */
export interface LoginRouteDeps {
  /** The organisation a login names, and what a second-factor ticket reads and writes. */
  store: OrganizationStore & SecondFactorDeps['store'];
  flow: LoginFlow;
  issuer: TokenIssuer;
  perSource: LoginsPerSource;
  now: () => number;
  attemptMetrics: AttemptMetrics;
}
