import type { AttemptMetrics } from '../../authn/attempt-metrics.ts';
import type { TokenIssuer } from '../../oauth/tokens/issuer.ts';
import type { TokenReader } from '../../oauth/tokens/reader.ts';
import type { AuditStore } from '../../store/audit/store.ts';
import type { AuthnAttemptStore } from '../../store/authn/store.ts';
import type { CredentialStore } from '../../store/credentials/store.ts';
import type { OrganizationStore } from '../../store/organizations/store.ts';
import type { PersonStore } from '../../store/persons/store.ts';
import type { RateLimitStore } from '../../store/rate-limits/store.ts';
import type { SecondFactorTicketStore } from '../../store/second-factor-tickets/store.ts';
import type { TransactionalStore } from '../../store/store.ts';
import type { WebAuthnChallengeStore } from '../../store/webauthn-challenges/store.ts';

export type WebAuthnStore = OrganizationStore &
  TransactionalStore &
  PersonStore &
  CredentialStore &
  AuditStore &
  AuthnAttemptStore &
  WebAuthnChallengeStore &
  SecondFactorTicketStore &
  RateLimitStore;

/** What the passkey ceremonies need from the service. */
export interface WebAuthnDeps {
  store: WebAuthnStore;
  issuer: TokenIssuer;
  /** Verifies the person JWT that may authorise a registration. */
  reader: TokenReader;
  /** The credentials' keyed hash, which names an unknown handle's attempt counter. */
  hashCode: (code: string) => string;
  /** The app's clock: challenge expiry, attempt delays, the token's iat and the audit agree on it. */
  now: () => number;
  /** Where counters of handles that name no one report nearing the lock (a metric). */
  attemptMetrics?: AttemptMetrics;
}
