import { ApiError } from '../errors/api-error.ts';
import { recordEvent } from '../store/audit/record-event.ts';
import type { TransactionalStore } from '../store/store.ts';

export interface DeletedCredential {
  orgId: string;
  personId: string;
  credentialId: string;
  /** What the `credential.deleted` audit event says besides the person and the id: who asked. */
  audit: Record<string, unknown>;
  at: number;
  /** Delete it only if the person keeps another credential of `types`; throw `refusal()` otherwise (nothing deleted). */
  keepingOneOf?: { types: readonly string[]; refusal: () => Error };
}

/**
 * Deletes one credential of one person and records it: the one way a credential goes, whether
 * an administrator deletes it through the API or the person removes their own in the console.
 * The person's generation is raised with it (design §5): what they signed in to before ends.
 * 404 when the person has no credential with this id (another person's is none of theirs).
 */
export async function deletePersonCredential(store: TransactionalStore, deleted: DeletedCredential): Promise<void> {
  const { orgId, personId, credentialId, audit, at, keepingOneOf } = deleted;
  // The deletion (with its raise of the generation) and its audit event commit together.
  await store.inTransaction(async (tx) => {
    const outcome = keepingOneOf
      ? await tx.deleteCredentialKeepingOneOf(orgId, personId, credentialId, keepingOneOf.types, at)
      : (await tx.deleteCredential(orgId, personId, credentialId, at))
        ? 'deleted'
        : 'not_found';
    if (outcome === 'last') throw keepingOneOf!.refusal();
    if (outcome === 'not_found') throw new ApiError('NOT_FOUND', 'path.credential_id: this person has no credential with this id');
    await recordEvent(tx, at, orgId, 'credential.deleted', { person_id: personId, credential_id: credentialId, ...audit });
  });
}
