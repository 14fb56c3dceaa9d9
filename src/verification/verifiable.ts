import type { DirectoryIdentity, IdentityRef } from '../connections/directory-identity.ts';
import { ApiError } from '../errors/api-error.ts';
import { canonicalEmailAddress, emailAddressProblem } from '../validation/email.ts';

/** An identity that can be sent a code, with the one address to send it to. */
export type VerifiableIdentity = DirectoryIdentity & { email: string };

/**
 * Whether an identity can be sent a code: it must be in its connection, active, and hold exactly
 * one valid address; `reason` says why not (null: it can). A directory value is attacker-editable
 * input, and a mail library reads "a@x, b@y" or a display-name form as other recipients.
 */
export function verifiability(
  identity: DirectoryIdentity | undefined,
): { reason: null; identity: VerifiableIdentity } | { reason: 'not_in_connection' | 'inactive' | 'no_email'; identity: DirectoryIdentity | undefined } {
  if (!identity) return { reason: 'not_in_connection', identity };
  if (!isActive(identity)) return { reason: 'inactive', identity };
  const { email } = identity;
  if (!email) return { reason: 'no_email', identity };
  // The address check is defence in depth: both directories answer an address that passed it (usableEmail) or null.
  // Stryker disable next-line ConditionalExpression,ObjectLiteral,StringLiteral: unreachable; both directories hand over only an address usableEmail accepted (this same check) or null
  if (emailAddressProblem(canonicalEmailAddress(email)) !== undefined) return { reason: 'no_email', identity };
  return { reason: null, identity: { ...identity, email } };
}

/**
 * Design §6: an identity is active when its directory says `active: true`, or says nothing and
 * was never deactivated. A provider removing `active` (RFC 7644 §3.5.2, `replace` with null)
 * from a deactivated user does not bring it back: initiate and the deny-gate both ask this.
 */
export function isActive(identity: DirectoryIdentity): boolean {
  return identity.active ?? !identity.deactivatedBefore;
}

/** The one 404 for an identity that cannot be sent a code, naming the field that named it. */
export function noVerifiableIdentity(by: IdentityRef): ApiError {
  return new ApiError('NOT_FOUND', `body.${'identityId' in by ? 'identity_id' : 'email'}: no active identity with an email address in this connection`);
}
