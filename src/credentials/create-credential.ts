import { handleCounterSubjects } from '../authn/attempt-subject.ts';
import { newId } from '../crypto/ids.ts';
import { invalidField, passkeyAlreadyRegistered } from '../errors/api-error.ts';
import { recordEvent } from '../store/audit/record-event.ts';
import type { Credential } from '../store/credentials/store.ts';
import { ConflictError } from '../store/errors.ts';
import type { TransactionalStore } from '../store/store.ts';
import { unsafeCharacterProblem } from '../validation/unsafe-characters.ts';
import type { CredentialTypeName, PreparedCredential } from './credential-type.ts';

export interface NewCredential {
  orgId: string;
  personId: string;
  type: CredentialTypeName;
  label: string | null;
  prepared: PreparedCredential;
  /** What the `credential.created` audit event says besides the person, the id and the type. */
  audit: Record<string, unknown>;
  at: number;
  /** Store it only while the person holds none of `types`; throw `refusal()` otherwise (nothing stored). */
  unlessHolding?: { types: readonly string[]; refusal: () => Error };
}

/**
 * Refuses a label (shown back, stored as text) with a control, format, unassigned or private-use
 * character or an unpaired surrogate: PostgreSQL cannot store a NUL at all (the insert failed, a
 * 500), and invisible characters would make two labels look alike. Called before anything is
 * stored or spent.
 */
export function checkCredentialLabel(label: string | null | undefined): void {
  const problem = label === null || label === undefined ? undefined : unsafeCharacterProblem(label);
  if (problem) throw invalidField('body.label', problem);
}

/**
 * Stores a prepared credential for a person and records it in the audit log: the one way a
 * credential comes into being, whether imported through the API, enrolled or registered in a
 * WebAuthn ceremony. Answers undefined when the person is not (or no longer) in the organisation.
 *
 * The person's attempt counters of this type start again: guesses made while the person had
 * no such credential could not have succeeded, and must not leave the new one locked.
 */
export async function createPersonCredential(
  store: TransactionalStore,
  hashCode: (code: string) => string,
  created: NewCredential,
): Promise<Credential | undefined> {
  const { orgId, personId, type, label, prepared, audit, at, unlessHolding } = created;
  const credential: Credential = {
    id: newId('crd', at),
    orgId,
    personId,
    type,
    label,
    params: prepared.params,
    secret: prepared.secret,
    version: 0,
    lastUsed: null,
    createdAt: at,
  };
  // The credential, the counters' reset and its audit event commit together or not at all.
  const stored = await store.inTransaction(async (tx) => {
    if (unlessHolding) {
      const outcome = await tx.createCredentialUnlessHolding(credential, unlessHolding.types);
      if (outcome === 'holding') throw unlessHolding.refusal();
      if (outcome === 'no_person') return false;
    } else if (!(await tx.createCredential(credential))) {
      return false;
    }
    const person = await tx.getPerson(orgId, personId);
    if (person) await tx.clearAuthnAttemptsOfPerson(orgId, personId, handleCounterSubjects(orgId, person, hashCode, [type]), type);
    await recordEvent(tx, at, orgId, 'credential.created', { person_id: personId, credential_id: credential.id, credential_type: type, ...audit });
    return true;
  });
  if (!stored) return undefined;
  return credential;
}

/**
 * For createPersonCredential's rejection: the store's refusal of a passkey whose credential id the
 * organisation holds already becomes the API's 409 PASSKEY_ALREADY_REGISTERED naming `field`
 * (nothing was stored: the credential, its counters' reset and its event were one transaction).
 */
export function rethrowPasskeyTaken(field: Parameters<typeof passkeyAlreadyRegistered>[0]): (error: unknown) => never {
  return (error) => {
    if (error instanceof ConflictError && error.subject === 'passkey') throw passkeyAlreadyRegistered(field);
    throw error;
  };
}
