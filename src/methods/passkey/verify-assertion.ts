import {
  type AuthenticationResponseJSON,
  generateAuthenticationOptions,
  type PublicKeyCredentialRequestOptionsJSON,
  verifyAuthenticationResponse,
} from '@simplewebauthn/server';
import { crossOriginRefusal } from './cross-origin.ts';
import { parseCoseKey } from './format/cose-key.ts';
import { isStrictDerEcdsaSignature } from './format/der-signature.ts';
import type { PublicKeyParams } from './format/params.ts';

/**
 * Logging in with a passkey (W3C WebAuthn §7.2), as pure functions: the caller keeps the
 * challenge (single use, expiring) and the credential, and stores what comes back.
 */

/** How long a challenge lives (issue 11: five minutes); also the browser's timeout. */
export const CHALLENGE_TTL_MS = 5 * 60 * 1000;

export type UserVerification = 'required' | 'preferred' | 'discouraged';

export interface AssertionOptionsInput {
  rpId: string;
  /** The person's webauthn_credential_id values; none lets the browser offer a discoverable passkey. */
  allowCredentialIds?: string[];
  /** Random by default (32 bytes); given only by tests. */
  challenge?: Uint8Array;
  timeoutMs?: number;
  /**
   * Default "required": a passkey login stands alone, so the PIN or biometric is the second
   * factor. Pass the same value to verifyAssertion's requireUserVerification.
   */
  userVerification?: UserVerification;
}

/** The options for navigator.credentials.get(); keep `challenge` to verify the answer. */
export async function assertionOptions(input: AssertionOptionsInput): Promise<PublicKeyCredentialRequestOptionsJSON> {
  return generateAuthenticationOptions({
    rpID: input.rpId,
    allowCredentials: (input.allowCredentialIds ?? []).map((id) => ({ id })),
    ...(input.challenge === undefined ? {} : { challenge: new Uint8Array(input.challenge) }),
    timeout: input.timeoutMs ?? CHALLENGE_TTL_MS,
    userVerification: input.userVerification ?? 'required',
  });
}

export interface VerifyAssertionInput {
  /** The browser's answer as JSON (@simplewebauthn/browser's startAuthentication() shape). */
  response: unknown;
  /** The base64url challenge of the options this answers. */
  expectedChallenge: string;
  rpId: string;
  /** The organisation's webauthn_origins, e.g. https://login.example.com. */
  origins: string[];
  /** The stored credential (readStoredPublicKeyParams reads it back from the store). */
  credential: Pick<PublicKeyParams, 'webauthn_credential_id' | 'public_key' | 'authenticator'>;
  /** Default true; match the options' userVerification. */
  requireUserVerification?: boolean;
}

export type AssertionVerification =
  | {
      verified: true;
      /** The counter to store: the reported one when it increased, else the stored one (never lower). */
      newSignCount: number;
      /** This assertion's counter did not increase: the key may have been cloned (§7.2 step 22). */
      cloneWarning: boolean;
      userVerified: boolean;
    }
  /** `reason` is for the audit log only: it can name the expected challenge and origins. */
  | { verified: false; reason: string };

export async function verifyAssertion(input: VerifyAssertionInput): Promise<AssertionVerification> {
  if (input.origins.length === 0) throw new Error('verifyAssertion: no WebAuthn origins are configured');
  const { credential } = input;
  const response = input.response as AuthenticationResponseJSON;
  // @simplewebauthn reports the credential it was given; it does not check the answer names it.
  if (typeof response?.id !== 'string' || response.id !== credential.webauthn_credential_id)
    return { verified: false, reason: 'the response is not from the credential that was asked for' };
  if (!isCanonicalSignature(response, credential.public_key)) return { verified: false, reason: 'the signature is not in the one encoding it has' };
  const storedCount = credential.authenticator.sign_count;
  let result: Awaited<ReturnType<typeof verifyAuthenticationResponse>>;
  try {
    result = await verifyAuthenticationResponse({
      response,
      expectedChallenge: input.expectedChallenge,
      expectedOrigin: input.origins,
      expectedRPID: input.rpId,
      // The library refuses a counter that does not increase. Spec and issue 11 want the login
      // judged by the organisation's clone policy instead, so the counter is compared below.
      credential: { id: credential.webauthn_credential_id, publicKey: Buffer.from(credential.public_key, 'base64'), counter: 0 },
      requireUserVerification: input.requireUserVerification ?? true,
    });
  } catch (error) {
    return { verified: false, reason: error instanceof Error ? error.message : String(error) };
  }
  if (!result.verified) return { verified: false, reason: 'the signature does not verify with the stored public key' };
  const crossOrigin = crossOriginRefusal(response);
  if (crossOrigin !== undefined) return { verified: false, reason: crossOrigin };
  const reported = result.authenticationInfo.newCounter;
  return {
    verified: true,
    newSignCount: Math.max(reported, storedCount),
    cloneWarning: isCloneSignal(storedCount, reported),
    userVerified: result.authenticationInfo.userVerified,
  };
}

/**
 * The signature in the one encoding it has: base64url (padding aside) of, for ES256, strict DER.
 * Other encodings of the same r and s verify just as well in the library; refusing them keeps one
 * signed answer to one form (the fuzzing of issue 15 found edited bytes accepted).
 */
function isCanonicalSignature(response: AuthenticationResponseJSON, publicKey: string): boolean {
  const encoded = response?.response?.signature;
  if (typeof encoded !== 'string') return true; // the library refuses a missing signature itself
  const signature = Buffer.from(encoded, 'base64url');
  if (signature.toString('base64url') !== encoded.replace(/=+$/, '')) return false;
  const key = parseCoseKey(Buffer.from(publicKey, 'base64'));
  return !key.ok || key.key.algorithm !== 'ES256' || isStrictDerEcdsaSignature(signature);
}

/**
 * W3C WebAuthn §7.2 step 22: when either counter is non-zero, the reported one must exceed the
 * stored one. Both zero is an authenticator that does not count (many synced passkeys), which is
 * allowed. A counter that once counted and now says 0 went backwards, so it is a signal too.
 */
export function isCloneSignal(storedCount: number, reportedCount: number): boolean {
  return (storedCount !== 0 || reportedCount !== 0) && reportedCount <= storedCount;
}
