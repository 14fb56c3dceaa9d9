import type { AttemptMetrics } from '../authn/attempt-metrics.ts';
import type { LoginFlow } from '../authn/login-flow.ts';
import type { LoginsPerSource } from '../authn/logins-per-source.ts';
import type { ConnectionDeps } from '../connections/operations.ts';
import type { CredentialTypeContext } from '../credentials/credential-type.ts';
import type { WebAuthnDeps } from '../methods/passkey/deps.ts';
import type { HashWorkPool, PasswordHashPolicy } from '../methods/password/index.ts';
import type { Store } from '../store/store.ts';
import type { VerificationDeps } from '../verification/deps.ts';
import type { ConsoleSessions } from './session.ts';

/**
 * What the console's sign-in shares with the API's /authn/… (methods/routes.ts makes them once
 * for both doors), so a guess counts toward the same lockout whichever door it came through.
 */
export interface ConsoleLogins {
  /** Counts each attempt, delays and locks, and records it. */
  flow: LoginFlow;
  /** The password-hashing threads, and the cost a password's new hash is made at. */
  pool: HashWorkPool;
  policy: PasswordHashPolicy | undefined;
  /** Password checks in flight at once from one client address. */
  perSource: LoginsPerSource;
  /** Opens TOTP secrets and hashes single-use codes (and the handles of attempt counters). */
  context: CredentialTypeContext;
  attemptMetrics: AttemptMetrics;
}

/** What the console's pages use: the same services as the API's routes, never a copy of their rules. */
export interface ConsoleDeps {
  store: Store;
  sessions: ConsoleSessions;
  logins: ConsoleLogins;
  webauthn: WebAuthnDeps;
  verification: VerificationDeps;
  /** Identity connections: the API's own create, rotate and delete (src/connections/operations.ts). */
  connections: ConnectionDeps;
  /** The public base URL, which the pages show as the token endpoint's and the SCIM server's. */
  issuer: () => string;
  now: () => number;
  dev: boolean;
}
