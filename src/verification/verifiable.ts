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
  if (!identity.active) return 'inactive';
  if (!identity.email || emailAddressProblem(canonicalEmailAddress(identity.email)) !== undefined) return 'no_email';
  return null;
}

/** The one 404 for an identity that cannot be sent a code, naming the field that named it. */
export function noVerifiableIdentity(by: IdentityRef): ApiError {
  return new ApiError('NOT_FOUND', `body.${'identityId' in by ? 'identity_id' : 'email'}: no active identity with an email address in this connection`);
}
