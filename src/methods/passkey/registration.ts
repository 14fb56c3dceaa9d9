import type { PublicKeyCredentialCreationOptionsJSON } from '@simplewebauthn/server';
import { operatorFields } from '../../audit/admin-events.ts';
import { withTwoFactors } from '../../authn/assurance.ts';
import { type FirstSecondFactor, requireFactorManagement } from '../../authn/enrolling-person.ts';
import type { AmrValue } from '../../authn/person-token.ts';
import { checkCredentialLabel, createPersonCredential, rethrowPasskeyTaken } from '../../credentials/create-credential.ts';
import { invalidField, personNotFound } from '../../errors/api-error.ts';
import type { Credential } from '../../store/credentials/store.ts';
import type { Organization } from '../../store/types.ts';
import { keepChallenge } from './challenges.ts';
import type { WebAuthnDeps } from './deps.ts';
import { readStoredPublicKeyParams, registrationOptions, verifyRegistration } from './index.ts';
import type { RegistrationCaller } from './registration-caller.ts';
import { relyingPartyOf } from './relying-party.ts';
import { withUserHandle } from './user-handle.ts';

/** Design §5: a person registering their own passkey proved two factors once they hold a second factor. */
async function requireCallerAssurance(deps: WebAuthnDeps, org: Organization, caller: RegistrationCaller): Promise<FirstSecondFactor | undefined> {
  if (caller.kind !== 'person') return undefined;
  const person = await deps.store.getPerson(org.id, caller.personId);
  if (!person) throw personNotFound('body.person_id');
  return requireFactorManagement(deps.store, { org, person, proof: caller.proof }, 'passkey registration');
}

/** POST /authn/webauthn/registration/options: creation options for the person, and the challenge kept for them. */
export async function startRegistration(
  deps: WebAuthnDeps,
  org: Organization,
  caller: RegistrationCaller,
  personId: string,
): Promise<{ challenge_id: string; options: PublicKeyCredentialCreationOptionsJSON }> {
  const { rpId } = relyingPartyOf(org);
  await requireCallerAssurance(deps, org, caller);
  const person = await deps.store.getPerson(org.id, personId);
  if (!person) throw personNotFound('body.person_id');
  const existing = await deps.store.listCredentialsOfType(org.id, person.id, 'public-key');
  const options = await registrationOptions({
    rpId,
    rpName: org.name,
    // What the authenticator shows to tell accounts apart; a person without handles shows their id.
    userName: person.handles[0]?.value ?? person.id,
    userId: person.id,
    excludeCredentialIds: existing.map((c) => readStoredPublicKeyParams(c.params).webauthn_credential_id),
  });
  const challengeId = await keepChallenge(deps.store, deps.now(), {
    orgId: org.id,
    purpose: 'registration',
    personId: person.id,
    subject: person.id,
    challenge: options.challenge,
  });
  return { challenge_id: challengeId, options };
}

export interface RegistrationBody {
  challenge_id: string;
  response: unknown;
  label?: string;
}

/** The new passkey, and what its ceremony proved (RFC 8176, with `mfa` when the user was verified). */
export interface RegisteredPasskey {
  credential: Credential;
  amr: AmrValue[];
}

/**
 * POST /authn/webauthn/registration/verify: spends the challenge, verifies the attestation and
 * stores the passkey as a public-key credential of the challenge's person (the same params an
 * import makes). A person token may finish only its own person's ceremony; an admin key any.
 */
export async function finishRegistration(
  deps: WebAuthnDeps,
  org: Organization,
  caller: RegistrationCaller,
  body: RegistrationBody,
  onRefused: (reason: string) => void,
): Promise<RegisteredPasskey> {
  const { store, now } = deps;
  const relyingParty = relyingPartyOf(org);
  checkCredentialLabel(body.label);
  const firstOnly = await requireCallerAssurance(deps, org, caller);
  // A person token may spend only its own person's challenge; the store leaves another person's
  // in place and answers it as unknown, so a leaked challenge_id cannot burn someone's ceremony.
  const ownPerson = caller.kind === 'person' ? caller.personId : undefined;
  const challenge = await store.spendWebAuthnChallenge(org.id, body.challenge_id, 'registration', now(), ownPerson);
  if (!challenge || challenge.personId === null) {
    throw invalidField('body.challenge_id', 'names no registration challenge of this organisation that is unused and unexpired (they live 5 minutes)');
  }
  const personId = challenge.personId;
  const verification = await verifyRegistration({
    response: body.response,
    expectedChallenge: challenge.challenge,
    rpId: relyingParty.rpId,
    origins: relyingParty.origins,
  });
  if (!verification.verified) {
    onRefused(verification.reason);
    throw invalidField(
      'body.response',
      "does not verify: the attestation must answer this challenge, from one of the organisation's origins, for its RP id, with user verification",
    );
  }
  // The store refuses a credential id the organisation holds already, for this person or another,
  // in the inserting transaction (W3C WebAuthn §7.1 step 26).
  const credential = await createPersonCredential(store, deps.hashCode, {
    orgId: org.id,
    personId,
    type: 'public-key',
    label: body.label ?? null,
    // The handle the options' user.id gave the authenticator, so that a login can compare it.
    prepared: { params: withUserHandle({ ...verification.params }, personId), secret: null },
    audit: {
      via: 'webauthn_registration',
      ...(caller.kind === 'admin_key' ? operatorFields({ kind: 'api_key', apiKeyId: caller.keyId }) : { api_key_id: null }),
    },
    at: now(),
    ...(firstOnly ? { unlessHolding: firstOnly } : {}),
  }).catch(rethrowPasskeyTaken('body.response'));
  if (!credential) throw personNotFound('body.person_id');
  const held: AmrValue = verification.backupEligible ? 'swk' : 'hwk';
  return { credential, amr: withTwoFactors(verification.userVerified ? [held, 'user'] : [held]) };
}
