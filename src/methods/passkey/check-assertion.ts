import type { Credential, CredentialStore } from '../../store/credentials/store.ts';
import { readStoredPublicKeyParams, verifyAssertion } from './index.ts';
import type { RelyingParty } from './relying-party.ts';
import { userHandleMatches } from './user-handle.ts';

export type AssertionOutcome =
  | { kind: 'success'; credentialId: string; cloneWarning: boolean; userVerified: boolean }
  /** reason: a word of our own for the audit, never input. */
  | { kind: 'failure'; reason: string; credentialId: string | null };

export interface AssertionInput {
  orgId: string;
  personId: string;
  /** The spent challenge, base64url. */
  challenge: string;
  response: unknown;
  relyingParty: RelyingParty;
  /** The verifier's own reason for a refusal (it may name the expected origins): for the service log. */
  onRefused: (reason: string) => void;
}

/** A concurrent login with the same passkey moved the counter meanwhile: judge again from the new one. */
const MAX_COUNTER_RACES = 5;

/**
 * Verifies the assertion against the person's passkey it names (and the user handle it carries,
 * if any, against the one the passkey was registered with) and stores what it teaches: the
 * new signature counter and, when the counter did not increase, clone_warning (kept once set,
 * so an administrator sees it). The write is a compare-and-set on the credential's version; a
 * login that lost the race is verified again against the counter the winner stored, so two
 * concurrent assertions cannot both claim the same counter value.
 */
export async function checkAssertion(store: CredentialStore, input: AssertionInput): Promise<AssertionOutcome> {
  // Every door's schema requires the response to be an object with a string id.
  const responseId = (input.response as { id: string }).id;
  for (let race = 0; race < MAX_COUNTER_RACES; race++) {
    const credentials = await store.listCredentialsOfType(input.orgId, input.personId, 'public-key');
    const credential = credentials.find((c) => readStoredPublicKeyParams(c.params).webauthn_credential_id === responseId);
    if (!credential) return { kind: 'failure', reason: 'no_such_credential', credentialId: null };
    if (!userHandleMatches(credential.params, input.response)) return { kind: 'failure', reason: 'user_handle_mismatch', credentialId: credential.id };
    const params = readStoredPublicKeyParams(credential.params);
    const verification = await verifyAssertion({
      response: input.response,
      expectedChallenge: input.challenge,
      rpId: input.relyingParty.rpId,
      origins: input.relyingParty.origins,
      credential: params,
    });
    if (!verification.verified) {
      input.onRefused(verification.reason);
      return { kind: 'failure', reason: 'assertion_refused', credentialId: credential.id };
    }
    const cloneWarning = params.authenticator.clone_warning || verification.cloneWarning;
    if (await storeCounter(store, credential, verification.newSignCount, cloneWarning)) {
      // The credential's flag, not this assertion's alone: a clone that reports a higher
      // counter than the genuine key must not clear it (an adversarial review's finding).
      return { kind: 'success', credentialId: credential.id, cloneWarning, userVerified: verification.userVerified };
    }
  }
  // Every try lost to another login with the same passkey: treated as a failed attempt.
  return { kind: 'failure', reason: 'counter_contended', credentialId: null };
}

/** Writes the counter and warning back unless they are unchanged; false when another write came first. */
async function storeCounter(store: CredentialStore, credential: Credential, signCount: number, cloneWarning: boolean): Promise<boolean> {
  const params = readStoredPublicKeyParams(credential.params);
  if (params.authenticator.sign_count === signCount && params.authenticator.clone_warning === cloneWarning) return true;
  const next = { ...params, authenticator: { ...params.authenticator, sign_count: signCount, clone_warning: cloneWarning } };
  return store.updateCredentialIf(credential.orgId, credential.id, credential.version, { params: { ...next }, secret: credential.secret });
}
