/** An identity as verification needs it: where the code goes, and whether it may still verify. */
export interface DirectoryIdentity {
  identityId: string;
  /** As the directory holds it (case kept); null when the identity has no email. */
  email: string | null;
  /** As the directory holds it; null when the identity has no `active` (never sent, or removed). */
  active: boolean | null;
  /** Whether it was ever deactivated: then a missing `active` is no reactivation (verification's isActive). */
  deactivatedBefore: boolean;
  displayName: string | null;
}

/** How initiate, the look-up and the deny-gate name an identity of a connection. */
export type IdentityRef = { identityId: string } | { email: string };
