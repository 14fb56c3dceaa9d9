import {
  generateRegistrationOptions,
  type PublicKeyCredentialCreationOptionsJSON,
  type RegistrationResponseJSON,
  verifyRegistrationResponse,
} from '@simplewebauthn/server';
import { ApiError } from '../../errors/api-error.ts';
import { crossOriginRefusal } from './cross-origin.ts';
import { toBase64 } from './format/base64.ts';
import { SUPPORTED_COSE_ALGORITHMS } from './format/cose-key.ts';
import { normalisePublicKeyParams } from './format/normalise-params.ts';
import type { PublicKeyParams } from './format/params.ts';
import { CHALLENGE_TTL_MS, type UserVerification } from './verify-assertion.ts';

/**
 * Registering a passkey from a browser (W3C WebAuthn §7.1), as pure functions: what comes out is
 * the same normalised params an import makes, so both paths store one shape.
 */

/** WebAuthn §5.4.3: user.id is at most 64 bytes. */
const USER_ID_MAX_BYTES = 64;

export interface RegistrationOptionsInput {
  rpId: string;
  /** Shown by the authenticator; the organisation's name. */
  rpName: string;
  /** Shown by the authenticator to pick the account: the person's handle. */
  userName: string;
  /** WebAuthn user.id (the person id): no personal data, at most 64 bytes of UTF-8. */
  userId: string;
  userDisplayName?: string;
  /** The person's existing webauthn_credential_id values, so one authenticator is not added twice. */
  excludeCredentialIds?: string[];
  /** Random by default (32 bytes); given only by tests. */
  challenge?: Uint8Array;
  timeoutMs?: number;
  /** Default "required", as for assertions. */
  userVerification?: UserVerification;
}

/** The options for navigator.credentials.create(); keep `challenge` to verify the answer. */
export async function registrationOptions(input: RegistrationOptionsInput): Promise<PublicKeyCredentialCreationOptionsJSON> {
  const userId = new TextEncoder().encode(input.userId);
  if (userId.length === 0 || userId.length > USER_ID_MAX_BYTES) throw new Error(`registrationOptions: userId must be 1 to ${USER_ID_MAX_BYTES} bytes`);
  return generateRegistrationOptions({
    rpName: input.rpName,
    rpID: input.rpId,
    userName: input.userName,
    userID: userId,
    userDisplayName: input.userDisplayName ?? input.userName,
    ...(input.challenge === undefined ? {} : { challenge: new Uint8Array(input.challenge) }),
    timeout: input.timeoutMs ?? CHALLENGE_TTL_MS,
    // No attestation trust store is configured, so asking for attestation would only collect data.
    attestationType: 'none',
    excludeCredentials: (input.excludeCredentialIds ?? []).map((id) => ({ id })),
    authenticatorSelection: { residentKey: 'preferred', userVerification: input.userVerification ?? 'required' },
    // Exactly what import accepts; the library's default would add ML-DSA where Node supports it.
    supportedAlgorithmIDs: SUPPORTED_COSE_ALGORITHMS,
  });
}

export interface VerifyRegistrationInput {
  /** The browser's answer as JSON (@simplewebauthn/browser's startRegistration() shape). */
  response: unknown;
  expectedChallenge: string;
  rpId: string;
  origins: string[];
  /** Default true; match the options' userVerification. */
  requireUserVerification?: boolean;
}

export type RegistrationVerification =
  /**
   * `params` are ready for publicKeyCredentialType.prepare(), and already pass it. `backupEligible`
   * is the signed BE flag (a synced passkey), `userVerified` the UV flag of this ceremony.
   */
  | { verified: true; params: PublicKeyParams; backupEligible: boolean; userVerified: boolean }
  /** `reason` is for the audit log only. */
  | { verified: false; reason: string };

export async function verifyRegistration(input: VerifyRegistrationInput): Promise<RegistrationVerification> {
  if (input.origins.length === 0) throw new Error('verifyRegistration: no WebAuthn origins are configured');
  let result: Awaited<ReturnType<typeof verifyRegistrationResponse>>;
  try {
    result = await verifyRegistrationResponse({
      response: input.response as RegistrationResponseJSON,
      expectedChallenge: input.expectedChallenge,
      expectedOrigin: input.origins,
      expectedRPID: input.rpId,
      requireUserVerification: input.requireUserVerification ?? true,
      supportedAlgorithmIDs: SUPPORTED_COSE_ALGORITHMS,
    });
  } catch (error) {
    return { verified: false, reason: error instanceof Error ? error.message : String(error) };
  }
  if (!result.verified) return { verified: false, reason: 'the attestation does not verify' };
  const crossOrigin = crossOriginRefusal(input.response);
  if (crossOrigin !== undefined) return { verified: false, reason: crossOrigin };
  const { credential, fmt, aaguid, credentialDeviceType, userVerified } = result.registrationInfo;
  try {
    // The same checks as an import, so a key import would refuse (RSA below 2048 bits) is refused here too.
    const params = normalisePublicKeyParams({
      webauthn_credential_id: credential.id,
      public_key: toBase64(credential.publicKey),
      attestation_type: fmt,
      authenticator: { aaguid: toBase64(Buffer.from(aaguid.replaceAll('-', ''), 'hex')), sign_count: credential.counter, clone_warning: false },
    });
    return { verified: true, params, backupEligible: credentialDeviceType === 'multiDevice', userVerified };
  } catch (error) {
    if (error instanceof ApiError) return { verified: false, reason: `the new credential is not one this service accepts: ${error.message}` };
    throw error;
  }
}
