import type { Migration } from '../migrate.ts';
import { organizationsApiKeysPersonsClients } from './001-organizations-api-keys-persons-clients.ts';
import { signingKeysTokensAuditEvents } from './002-signing-keys-tokens-audit-events.ts';
import { tokenMayAct } from './003-token-may-act.ts';
import { credentialsAttemptCounters } from './004-credentials-attempt-counters.ts';
import { webauthnChallenges } from './005-webauthn-challenges.ts';
import { totpEnrolments } from './006-totp-enrolments.ts';
import { attemptCountersPerHandle } from './007-attempt-counters-per-handle.ts';
import { identityConnections } from './008-identity-connections.ts';
import { emailVerificationsRateLimits } from './009-email-verifications-rate-limits.ts';
import { consoleSessions } from './010-console-sessions.ts';
import { secondFactors } from './011-second-factors.ts';
import { scimDeactivationCoreSchemaFold } from './012-scim-deactivation-core-schema-fold.ts';
import { attemptsOfNoOnePurgeIndex } from './013-attempts-of-no-one-purge-index.ts';
import { onePasskeyPerOrganization } from './014-one-passkey-per-organization.ts';
import { invitations } from './015-invitations.ts';
import { clientKeyAuthentication } from './016-client-key-authentication.ts';
import { clientsBySpiffeId } from './017-clients-by-spiffe-id.ts';
import { type Dialect, type MigrationSource, renderMigration } from './dialect.ts';

/**
 * Append only: a released migration is never edited, a change is a new version (a new file
 * here, added at the end). Times are milliseconds since the epoch; JSON columns hold small
 * documents read whole.
 */
const sources: readonly MigrationSource[] = [
  organizationsApiKeysPersonsClients,
  signingKeysTokensAuditEvents,
  tokenMayAct,
  credentialsAttemptCounters,
  webauthnChallenges,
  totpEnrolments,
  attemptCountersPerHandle,
  // Version 8 is taken by the identity connections of another branch; the runner applies
  // versions it has not seen in list order, so a gap (or 8 arriving after 9) is harmless.
  identityConnections,
  emailVerificationsRateLimits,
  consoleSessions,
  secondFactors,
  scimDeactivationCoreSchemaFold,
  attemptsOfNoOnePurgeIndex,
  onePasskeyPerOrganization,
  invitations,
  clientKeyAuthentication,
  clientsBySpiffeId,
];

/** The schema version this Tessera brings its database to; /readyz compares the database's. */
export const LATEST_SCHEMA_VERSION = Math.max(...sources.map((source) => source.version));

export function migrationsFor(dialect: Dialect): Migration[] {
  return sources.map((source) => renderMigration(source, dialect));
}
