import { hasSecondFactor, needsTwoFactors } from '../authn/assurance.ts';
import { handleCounterSubjects } from '../authn/attempt-subject.ts';
import type { CredentialTypeContext } from '../credentials/credential-type.ts';
import { hashSecret, newId } from '../crypto/ids.ts';
import { ApiError, invalidField } from '../errors/api-error.ts';
import { hashPassword, type PasswordHashPolicy } from '../methods/password/index.ts';
import { newPasswordProblem } from '../methods/password/new-password.ts';
import type { HashWorkPool } from '../methods/password/threads/hash-work-pool.ts';
import { passwordCredentialType } from '../methods/password/type.ts';
import { recordEvent } from '../store/audit/record-event.ts';
import type { Invitation } from '../store/invitations/store.ts';
import type { Store } from '../store/store.ts';
import type { Organization, Person } from '../store/types.ts';
import { INVITATION_TOKEN_PATTERN } from './link.ts';

export interface RedemptionDeps {
  store: Store;
  now: () => number;
  /** The login services' hashing threads and policy: a new password costs what a login does. */
  pool: HashWorkPool;
  policy?: PasswordHashPolicy;
  /** Seals and hashes as every credential type does (credentials/context.ts). */
  context: CredentialTypeContext;
}

/** An invitation that works, with whom it is for. */
export interface OpenInvitation {
  invitation: Invitation;
  org: Organization;
  person: Person;
  /** Their roles need two factors: the link is spent once one is added, not by the password. */
  secondFactorOwed: boolean;
}

/** One answer for every link that does not work, so that a guess learns nothing of which tokens existed. */
export const invitationNotWorking = () =>
  new ApiError('NOT_FOUND', 'invitation: this link does not work: it was used, replaced by a newer one, or it expired; ask your administrator for a new one');

/** The invitation `token` opens, or 404: unknown, expired, revoked, or spent. */
export async function openInvitation(deps: Pick<RedemptionDeps, 'store' | 'now'>, token: string): Promise<OpenInvitation> {
  const { store } = deps;
  if (!INVITATION_TOKEN_PATTERN.test(token)) throw invitationNotWorking();
  const invitation = await store.getInvitationByToken(hashSecret(token), deps.now());
  if (!invitation) throw invitationNotWorking();
  const [org, person] = await Promise.all([store.getOrganization(invitation.orgId), store.getPerson(invitation.orgId, invitation.personId)]);
  if (!org || !person) throw invitationNotWorking();
  // Its last step is done once a person who set their password through it has a second factor,
  // however they added it (here, or after signing in with that password): spent then.
  if (invitation.passwordSetAt !== null && (await hasSecondFactor(store, org.id, person.id))) {
    await store.spendInvitation(invitation.tokenHash, invitation.passwordSetAt);
    throw invitationNotWorking();
  }
  return { invitation, org, person, secondFactorOwed: needsTwoFactors(person) };
}

export interface Redeemed {
  org: Organization;
  /** As they are now: their generation raised when credentials were replaced. */
  person: Person;
  /** What the password just set proves (RFC 8176): the session it opens carries it. */
  amr: ['pwd'];
  /** False while a second factor is owed: the console's enrolment page comes next. */
  complete: boolean;
}

/**
 * Redeems an invitation (as openInvitation found it) with the password the person chose (design §9): held to the new-password
 * rules, hashed under the policy, and then in one transaction the link is taken (spent, or marked
 * for the second factor still owed; of concurrent redemptions one wins), whatever the person
 * held is replaced by the password (their generation raised, ending their tokens and sessions),
 * their attempt counters start again, and the redemption is recorded.
 */
export async function redeemInvitation(deps: RedemptionDeps, opened: OpenInvitation, password: string): Promise<Redeemed> {
  const { invitation, org, person, secondFactorOwed } = opened;
  const problem = newPasswordProblem(password, { organizationName: org.name, handles: person.handles.map((handle) => handle.value) });
  if (problem) throw invalidField('password', problem);
  const prepared = await passwordCredentialType.prepare({ password_hash: await hashPassword(password, deps.pool, deps.policy) }, deps.context);
  const at = deps.now();
  const credential = { id: newId('crd', at), orgId: org.id, personId: person.id, type: 'password', label: null, ...prepared, createdAt: at };
  return deps.store.inTransaction(async (tx) => {
    const { tokenHash, passwordSetAt } = invitation;
    const taken = secondFactorOwed ? await tx.setInvitationPasswordSet(tokenHash, passwordSetAt, at) : await tx.spendInvitation(tokenHash, passwordSetAt);
    if (!taken) throw invitationNotWorking();
    const removed = await tx.replaceCredentialsOfPerson(credential, at);
    const now = await tx.getPerson(org.id, person.id);
    if (removed === undefined || !now) throw invitationNotWorking();
    const counters = await tx.clearAuthnAttemptsOfPerson(org.id, person.id, handleCounterSubjects(org.id, person, deps.context.hashCode));
    await recordEvent(tx, at, org.id, 'person.invitation_redeemed', {
      person_id: person.id,
      reset: invitation.reset,
      credentials_replaced: removed,
      attempt_counters_cleared: counters,
      second_factor_owed: secondFactorOwed,
    });
    return { org, person: now, amr: ['pwd'], complete: !secondFactorOwed };
  });
}
