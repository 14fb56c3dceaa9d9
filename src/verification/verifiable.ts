import type { DirectoryIdentity, IdentityRef } from '../connections/identity-directory.ts';
import { ApiError } from '../errors/api-error.ts';
import { canonicalEmailAddress, emailAddressProblem } from '../validation/email.ts';

/**
 * Why an identity cannot be sent a code, or null when it can: it must be in its connection,
 * active, and hold exactly one valid address. A directory value is attacker-editable input, and
 * a mail library reads "a@x, b@y" or a display-name form as other recipients.
 */
export function unverifiableReason(identity: DirectoryIdentity | undefined): 'not_in_connection' | 'inactive' | 'no_email' | null {
  if (!identity) return 'not_in_connection';
  if (!isActive(identity)) return 'inactive';
  if (!identity.email || emailAddressProblem(canonicalEmailAddress(identity.email)) !== undefined) return 'no_email';
  return null;
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
