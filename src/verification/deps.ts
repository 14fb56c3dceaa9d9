import type { IdentityDirectory } from '../connections/identity-directory.ts';
import type { Mailer } from '../email/mailer.ts';
import type { AuditStore } from '../store/audit/store.ts';
import type { OrganizationStore } from '../store/organizations/store.ts';
import type { PersonStore } from '../store/persons/store.ts';
import type { RateLimitStore } from '../store/rate-limits/store.ts';
import type { EmailVerificationStore } from '../store/verifications/store.ts';
import type { VerificationHasher } from './code.ts';

/** What the one core of email verification needs; both front doors hand it the same. */
export interface VerificationDeps {
  store: EmailVerificationStore & RateLimitStore & AuditStore & PersonStore & OrganizationStore;
  directory: IdentityDirectory;
  mailer: Mailer;
  hasher: VerificationHasher;
  now: () => number;
}

/** Who called: an integration (by its key) or a helpdesk verifier (by their person JWT). */
export type VerificationCaller = { door: 'integration'; apiKeyId: string; apiKeyName: string } | { door: 'helpdesk'; personId: string };

/** Who checks the code with the person: design §6's operator, recorded on every attempt. */
export interface Operator {
  email: string;
  /** integration_asserted: vouched for by the integration's key; helpdesk_session: the caller's own person JWT. */
  assertion: 'integration_asserted' | 'helpdesk_session';
}

/** Design §6's numbers. */
export const VERIFICATION_TTL_MS = 10 * 60 * 1000;
export const MAX_WRONG_CODES = 5;
/** Per operator, across verifications: enough for a busy helpdesk, too few to guess codes with. */
export const OPERATOR_LIMIT = { limit: 30, windowMs: 60_000 } as const;
/** Per identity: initiates (each a new email, and a new five attempts) and verify attempts across its verifications. */
export const IDENTITY_INITIATE_LIMIT = { limit: 5, windowMs: 10 * 60_000 } as const;
export const IDENTITY_VERIFY_LIMIT = { limit: 10, windowMs: 60 * 60_000 } as const;

/** The rate-limit key of an identity of a connection, for `what` (initiate or verify). */
export function identityKey(what: 'initiate' | 'verify', identity: { connectionId: string; identityId: string }): string {
  return `${what}-identity:${identity.connectionId}:${identity.identityId}`;
}

/** The caller as the audit log names it. */
export function callerData(caller: VerificationCaller): Record<string, unknown> {
  return caller.door === 'integration'
    ? { door: 'integration', api_key_id: caller.apiKeyId, api_key_name: caller.apiKeyName }
    : { door: 'helpdesk', caller_person_id: caller.personId };
}
