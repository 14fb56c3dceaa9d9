import type { ConnectionDeps } from '../connections/operations.ts';
import type { InvitationDeps } from '../invitations/invite.ts';
import type { LoginServices } from '../methods/login-services.ts';
import type { WebAuthnDeps } from '../methods/passkey/deps.ts';
import type { Store } from '../store/store.ts';
import type { VerificationDeps } from '../verification/deps.ts';
import type { ConsoleSessions } from './session.ts';

/**
 * What the console's sign-in shares with the API's /authn/… (methods/login-services.ts makes them
 * once for both doors), so a guess counts toward the same lockout whichever door it came through:
 * the flow (counts, delays, locks and records each attempt), the password-hashing threads and the
 * cost a new hash is made at, the per-address bound, and the context that opens TOTP secrets and
 * hashes single-use codes.
 */
export type ConsoleLogins = Pick<LoginServices, 'flow' | 'pool' | 'policy' | 'perSource' | 'failureTimeMs' | 'context' | 'attemptMetrics'>;

/** What the console's pages use: the same services as the API's routes, never a copy of their rules. */
export interface ConsoleDeps {
  store: Store;
  sessions: ConsoleSessions;
  logins: ConsoleLogins;
  webauthn: WebAuthnDeps;
  verification: VerificationDeps;
  /** Identity connections: the API's own create, rotate and delete (src/connections/operations.ts). */
  connections: ConnectionDeps;
  /** Invitations: the API's own (src/invitations/invite.ts), and the redemption the console hosts. */
  invitations: InvitationDeps;
  /** The public base URL, which the pages show as the token endpoint's and the SCIM server's. */
  issuer: () => string;
  now: () => number;
  dev: boolean;
}
