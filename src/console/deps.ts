import type { ConnectionRoutesDeps } from '../connections/routes.ts';
import type { LoginServices } from '../methods/login-services.ts';
import type { WebAuthnDeps } from '../methods/passkey/deps.ts';
import type { Store } from '../store/store.ts';
import type { VerificationDeps } from '../verification/deps.ts';
import type { ConsoleSessions } from './session.ts';

/** What the console's pages use: the same services as the API's routes, never a copy of their rules. */
export interface ConsoleDeps {
  store: Store;
  sessions: ConsoleSessions;
  logins: LoginServices;
  webauthn: WebAuthnDeps;
  verification: VerificationDeps;
  /** Identity connections: the API's own create, rotate and delete (src/connections/routes.ts). */
  connections: ConnectionRoutesDeps;
  now: () => number;
  dev: boolean;
}
