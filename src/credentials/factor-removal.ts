import { needsTwoFactors, SECOND_FACTOR_TYPES } from '../authn/assurance.ts';
import { type Enroller, requireFactorManagement } from '../authn/enrolling-person.ts';
import { ApiError } from '../errors/api-error.ts';
import type { AuditStore } from '../store/audit/store.ts';
import type { CredentialStore } from '../store/credentials/store.ts';
import type { TransactionalStore } from '../store/store.ts';
import type { Person } from '../store/types.ts';
import { deletePersonCredential } from './delete-credential.ts';

/** Which of their own factors a person removes: a passkey or their authenticator app. */
export interface OwnFactor {
  credentialId: string;
  type: 'public-key' | 'totp';
  /** How the refusals name it: "passkey", "authenticator app". */
  name: string;
}

/**
 * A person removes one of their own second factors (design §5): their sign-in must have proven
 * two factors and be at most ten minutes old, as for any removal; the credential must be theirs
 * (another person's, like an unknown one, is a 404); and an administrator or verifier keeps at
 * least one, since they sign in with two factors. The deletion raises their generation.
 */
export async function removeOwnFactor(
  store: CredentialStore & AuditStore & TransactionalStore,
  enroller: Enroller,
  factor: OwnFactor,
  audit: Record<string, unknown>,
  now: () => number,
): Promise<void> {
  const { org, person } = enroller;
  await requireFactorManagement(store, enroller, `removing a ${factor.name}`, { now: now() });
  const credential = await store.getCredential(org.id, person.id, factor.credentialId);
  if (credential?.type !== factor.type) throw new ApiError('NOT_FOUND', `path.credential_id: you have no ${factor.name} with this id`);
  // Decided with the deletion, so that two removals at once cannot each leave the other as the last.
  const keepingOneOf = needsTwoFactors(person) ? { types: SECOND_FACTOR_TYPES, refusal: () => lastSecondFactor(person) } : undefined;
  await deletePersonCredential(store, {
    orgId: org.id,
    personId: person.id,
    credentialId: factor.credentialId,
    audit,
    at: now(),
    ...(keepingOneOf ? { keepingOneOf } : {}),
  });
}

function lastSecondFactor(person: Pick<Person, 'roles'>): ApiError {
  const role = person.roles.includes('admin') ? 'an administrator' : 'a verifier';
  return new ApiError('CONFLICT', `credential: is your last passkey or authenticator app, and as ${role} you sign in with two factors; add another one first`);
}
