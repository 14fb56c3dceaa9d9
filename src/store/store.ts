import type { AuditStore } from './audit/store.ts';
import type { AuthnAttemptStore } from './authn/store.ts';
import type { ClientStore } from './clients/store.ts';
import type { ConnectionStore } from './connections/store.ts';
import type { ConsoleSessionStore } from './console-sessions/store.ts';
import type { CredentialStore } from './credentials/store.ts';
import type { IdentityStore } from './identities/store.ts';
import type { InvitationStore } from './invitations/store.ts';
import type { OrganizationStore } from './organizations/store.ts';
import type { PersonStore } from './persons/store.ts';
import type { RateLimitStore } from './rate-limits/store.ts';
import type { SecondFactorTicketStore } from './second-factor-tickets/store.ts';
import type { SigningKeyStore } from './signing-keys/store.ts';
import type { TokenStore } from './tokens/store.ts';
import type { TotpEnrolmentStore } from './totp-enrolments/store.ts';
import type { EmailVerificationStore } from './verifications/store.ts';
import type { WebAuthnChallengeStore } from './webauthn-challenges/store.ts';

export { ConflictError, type ConflictSubject, StorageUnavailableError } from './errors.ts';

/** The database connection itself, apart from what any module keeps in it. */
export interface StoreConnection {
  readonly dialect: 'sqlite' | 'postgres';
  /** Cheap round trip for health checks. */
  ping(): Promise<void>;
  /** The newest migration applied to the database: one round trip, for readiness. */
  schemaVersion(): Promise<number>;
  /** How many rows one of the purged tables holds: what the purge keeps bounded, for operators and its test. */
  countRows(table: PurgedTable): Promise<number>;
  close(): Promise<void>;
}

/** The tables whose rows outlive their use and are purged on a timer (src/housekeeping/purge-stale-rows.ts). */
export const PURGED_TABLES = [
  'tokens',
  'rate_limits',
  'email_verifications',
  'console_sessions',
  'authn_attempts',
  'webauthn_challenges',
  'totp_enrolments',
  'second_factor_tickets',
  'invitations',
  'client_assertion_jtis',
] as const;
export type PurgedTable = (typeof PURGED_TABLES)[number];

/** Changes of several modules that must commit together, such as a change and its audit event. */
export interface TransactionalStore {
  /**
   * Runs `fn` with the whole store bound to one transaction: everything `fn` writes through
   * `tx` commits when it resolves, nothing when it throws. `fn` must use `tx` only: on SQLite
   * the outer store waits for this transaction to end.
   */
  inTransaction<T>(fn: (tx: Store) => Promise<T>): Promise<T>;
}

/**
 * Everything the service persists: the sum of the module stores (each declared with its SQL
 * in its own folder beside this file) over one connection. Code that needs one module takes
 * that module's store; a new module adds its store to this intersection and to sqlStore.
 *
 * Rules every module store keeps: it must be safe for many service replicas over one database
 * (nothing may rely on process memory for correctness); a write that collides with a
 * uniqueness rule throws ConflictError, a database that cannot be reached throws
 * StorageUnavailableError; a method scoped to an organisation never sees another's rows.
 */
export type Store = StoreConnection &
  TransactionalStore &
  OrganizationStore &
  PersonStore &
  ClientStore &
  TokenStore &
  SigningKeyStore &
  AuditStore &
  CredentialStore &
  AuthnAttemptStore &
  WebAuthnChallengeStore &
  TotpEnrolmentStore &
  EmailVerificationStore &
  RateLimitStore &
  ConnectionStore &
  IdentityStore &
  ConsoleSessionStore &
  SecondFactorTicketStore &
  InvitationStore;
