import { type Enroller, requireFactorManagement } from '../../authn/enrolling-person.ts';
import type { CredentialTypeContext } from '../../credentials/credential-type.ts';
import { ApiError, invalidField } from '../../errors/api-error.ts';
import { recordEvent } from '../../store/audit/record-event.ts';
import type { Credential } from '../../store/credentials/store.ts';
import { ENROLMENT_RECOVERY_CODES, type TotpEnrolmentDeps } from './enrolment-flow.ts';
import { normaliseRecoveryCode, readStoredTotp, recoveryCodes } from './index.ts';

/**
 * Compare-and-set rounds: a lost round means a login spent a step or a code meanwhile; the
 * re-read carries that over. Bounded, so a storm of logins cannot hold the request.
 */
const MAX_REPLACE_ROUNDS = 5;

export interface RegeneratedRecoveryCodes {
  credential_id: string;
  /** Shown once: only their hashes are kept. */
  recovery_codes: string[];
}

/**
 * Replaces every recovery code of a TOTP credential with ENROLMENT_RECOVERY_CODES new ones: the
 * old ones, used or not, stop working, and `recovery_codes_total` counts the new set. The key
 * and its last used step are kept, so the authenticator app goes on working. Recorded as a
 * `credential.recovery_codes_regenerated` event (never the codes).
 */
export async function regenerateRecoveryCodes(
  enroller: Enroller,
  credentialId: string | undefined,
  { store, context, now }: TotpEnrolmentDeps,
  /** Where the caller put the id, for the 404 (the API's body, the console's path). */
  credentialField: 'body.credential_id' | 'path.credential_id' = 'body.credential_id',
): Promise<RegeneratedRecoveryCodes> {
  const { org, person } = enroller;
  // New codes are a way in: as a removal, they need a recent sign-in with two factors.
  await requireFactorManagement(store, enroller, 'new recovery codes', { now: now() });
  let credential = await totpCredentialOf(store, enroller, credentialId, credentialField);
  const codes = recoveryCodes(ENROLMENT_RECOVERY_CODES);
  const hashes = recoveryCodeHashes(codes, context);
  for (let round = 0; round < MAX_REPLACE_ROUNDS; round++) {
    // Checks the stored shape: a credential that is not what prepare made is not patched blindly.
    readStoredTotp(credential);
    const next = {
      params: { ...credential.params, recovery_codes_total: codes.length },
      secret: { ...credential.secret, recovery_code_hashes: hashes },
    };
    if (await store.updateCredentialIf(org.id, credential.id, credential.version, next)) {
      const data = { person_id: person.id, credential_id: credential.id, api_key_id: enroller.apiKeyId };
      await recordEvent(store, now(), org.id, 'credential.recovery_codes_regenerated', data);
      return { credential_id: credential.id, recovery_codes: codes };
    }
    const current = await store.getCredential(org.id, person.id, credential.id);
    if (current?.type !== 'totp') throw noSuchTotp(credentialField);
    credential = current;
  }
  throw new ApiError('CONFLICT', 'the TOTP credential kept changing while its recovery codes were replaced; try again');
}

/** As totpCredentialType.prepare stores them: the keyed hash of each code's normalised form. */
function recoveryCodeHashes(codes: string[], context: CredentialTypeContext): string[] {
  // Codes of our own making are printable ASCII, which always normalises.
  return codes.map((code) => context.hashCode(normaliseRecoveryCode(code)!));
}

/** The person's TOTP credential `credentialId`, or their only one when none is named. */
async function totpCredentialOf(
  store: TotpEnrolmentDeps['store'],
  { org, person }: Enroller,
  credentialId: string | undefined,
  credentialField: string,
): Promise<Credential> {
  if (credentialId !== undefined) {
    const credential = await store.getCredential(org.id, person.id, credentialId);
    if (credential?.type !== 'totp') throw noSuchTotp(credentialField);
    return credential;
  }
  const all = await store.listCredentialsOfType(org.id, person.id, 'totp');
  if (all.length === 0) throw new ApiError('NOT_FOUND', 'the person has no TOTP credential: enrol one first (POST /authn/totp/enrolment)');
  if (all.length > 1) throw invalidField('body.credential_id', `is required: the person has ${all.length} TOTP credentials`);
  return all[0]!;
}

function noSuchTotp(credentialField: string): ApiError {
  return new ApiError('NOT_FOUND', `${credentialField}: the person has no TOTP credential with this id`);
}
