/**
 * A one-time link that gives a person a login (design §9): where they set a password and, when
 * their roles need two factors, add a second one. The link's 256-bit token is a bearer secret
 * the person holds; the store keeps only its SHA-256. A person has at most one: a new
 * invitation revokes the one before it, and deleting the person deletes it.
 */
export interface Invitation {
  orgId: string;
  personId: string;
  tokenHash: string;
  /** The person held credentials when it was made: redeeming it replaces them. */
  reset: boolean;
  createdAt: number;
  expiresAt: number;
  /**
   * When the password was set through it, for a person who still owes a second factor: the
   * link stays open (for that person, in a browser that lost its session) until the factor is
   * added, and is spent then; anything else that raises their generation meanwhile closes it
   * (closeHalfUsedInvitation). Null until the password is set.
   */
  passwordSetAt: number | null;
}

/**
 * Invitations. Setting the password and spending are each one conditional statement on the
 * state read before, so of any number of replicas redeeming one link at once exactly one wins.
 */
export interface InvitationStore {
  /** Stores the person's invitation in place of any earlier one; false, storing nothing, when the person is not of the organisation. */
  putInvitation(invitation: Invitation): Promise<boolean>;
  /** The invitation whose token hashes to `tokenHash`, if unexpired at `now`. */
  getInvitationByToken(tokenHash: string, now: number): Promise<Invitation | undefined>;
  /** The person's invitation, if unexpired at `now`. */
  getInvitationOfPerson(orgId: string, personId: string, now: number): Promise<Invitation | undefined>;
  /** Records the password set at `at`, only while the invitation is as read (`expected`) and unexpired: true for one of concurrent callers. */
  setInvitationPasswordSet(tokenHash: string, expected: number | null, at: number): Promise<boolean>;
  /** Deletes the invitation, only while it is as read (`expected`): true for one of concurrent callers. */
  spendInvitation(tokenHash: string, expected: number | null): Promise<boolean>;
  /** Deletes the person's invitation, whatever its state; true if there was one. */
  revokeInvitation(orgId: string, personId: string): Promise<boolean>;
  /** Removes at most `limit` invitations expired by `now`; returns how many. */
  purgeInvitations(now: number, limit: number): Promise<number>;
}
