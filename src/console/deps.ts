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
 * What the console's sign-in shares with the API's /authn/…: one flow, one hashing pool and one
 * bound per address, so a guess counts toward the same lockout whichever door it came through.
 */
export interface ConsoleLogins {
  flow: LoginFlow;
  pool: HashWorkPool;
  perSource: LoginsPerSource;
  context: CredentialTypeContext;
  policy: PasswordHashPolicy | undefined;
  now: () => number;
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
