import { sqlAuditStore } from './audit/sql.ts';
import { forgetAttemptsOfParty, sqlAuthnAttemptStore } from './authn/sql.ts';
import { sqlClientStore } from './clients/sql.ts';
import { sqlConnectionStore } from './connections/sql.ts';
import { sqlConsoleSessionStore } from './console-sessions/sql.ts';
import { sqlCredentialStore } from './credentials/sql.ts';
import { sqlIdentityStore } from './identities/sql.ts';
import { closeHalfUsedInvitation, sqlInvitationStore } from './invitations/sql.ts';
import { sqlOrganizationStore } from './organizations/sql.ts';
import type { PartyDeletionStep } from './party-deletion.ts';
import { type GenerationStep, raiseGenerationIn, sqlPersonStore } from './persons/sql.ts';
import { sqlRateLimitStore } from './rate-limits/sql.ts';
import { sqlSecondFactorTicketStore } from './second-factor-tickets/sql.ts';
import { sqlSigningKeyStore } from './signing-keys/sql.ts';
import type { SqlDriver } from './sql-driver.ts';
import { PURGED_TABLES, type Store, type StoreConnection, type TransactionalStore } from './store.ts';
import { revokeTokensOfParty, sqlTokenStore } from './tokens/sql.ts';
import { sqlTotpEnrolmentStore } from './totp-enrolments/sql.ts';
import { transactionBoundDriver } from './transaction-bound.ts';
import { sqlEmailVerificationStore } from './verifications/sql.ts';
import { sqlWebAuthnChallengeStore } from './webauthn-challenges/sql.ts';

/**
 * The whole Store over either SQL dialect: every module store over the same driver, so a
 * transaction one module opens can carry another module's statements (see party-deletion.ts).
 */
export function sqlStore(db: SqlDriver): Store {
  // What else must go, in the deleting transaction, when a person or a client is deleted.
  // (A person's credentials go by the foreign key's ON DELETE CASCADE, in the same statement.)
  const onPartyDeleted: PartyDeletionStep[] = [revokeTokensOfParty, forgetAttemptsOfParty];
  // What else ends when a person's generation is raised: their opaque tokens, as at deletion, and
  // an invitation link kept open only for the second factor still owed.
  const onGenerationRaised: GenerationStep[] = [revokeTokensOfParty, closeHalfUsedInvitation];
  const raiseGeneration: GenerationStep = (tx, orgId, personId, at) => raiseGenerationIn(tx, onGenerationRaised, orgId, personId, at);
  // Typed as the intersection of the parts, so leaving a module out fails to compile here.
  const store: Store = composeStores(
    connection(db),
    transactions(db),
    sqlOrganizationStore(db),
    sqlPersonStore(db, onPartyDeleted, onGenerationRaised),
    sqlClientStore(db, onPartyDeleted),
    sqlTokenStore(db),
    sqlSigningKeyStore(db),
    sqlAuditStore(db),
    sqlCredentialStore(db, [raiseGeneration]),
    sqlAuthnAttemptStore(db),
    sqlWebAuthnChallengeStore(db),
    sqlTotpEnrolmentStore(db),
    sqlEmailVerificationStore(db),
    sqlRateLimitStore(db),
    sqlConnectionStore(db),
    sqlIdentityStore(db),
    sqlConsoleSessionStore(db),
    sqlSecondFactorTicketStore(db),
    sqlInvitationStore(db),
  );
  return store;
}

/** Several module stores' writes as one: the whole store again, over one transaction (see transaction-bound.ts). */
function transactions(db: SqlDriver): TransactionalStore {
  return {
    inTransaction: (fn) => db.transaction((tx) => fn(sqlStore(transactionBoundDriver(db.dialect, tx)))),
  };
}

function connection(db: SqlDriver): StoreConnection {
  return {
    dialect: db.dialect,
    async ping() {
      await db.all('SELECT 1 AS ok');
    },
    async schemaVersion() {
      const [row] = await db.all<{ version: number | string | null }>('SELECT MAX(version) AS version FROM schema_migrations');
      return Number(row?.version ?? 0);
    },
    async countRows(table) {
      // The name is one of a fixed list, never the caller's text.
      if (!PURGED_TABLES.includes(table)) throw new TypeError(`not a purged table: ${table}`);
      const [row] = await db.all<{ count: number | string }>(`SELECT COUNT(*) AS count FROM ${table}`);
      return Number(row?.count ?? 0);
    },
    close: () => db.close(),
  };
}

/**
 * One object with every module store's methods. Two modules naming a method alike would
 * silently shadow one another in a plain spread, so that is refused when the store is built.
 */
function composeStores<Parts extends object[]>(...parts: Parts): IntersectionOf<Parts> {
  const whole: Record<string, unknown> = {};
  for (const part of parts) {
    for (const [name, member] of Object.entries(part)) {
      if (name in whole) throw new Error(`two module stores both define ${name}`);
      whole[name] = member;
    }
  }
  return whole as IntersectionOf<Parts>;
}

type IntersectionOf<Parts extends object[]> = Parts extends [infer First, ...infer Rest extends object[]] ? First & IntersectionOf<Rest> : unknown;
