import type { PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/server';
import { withTwoFactors } from '../../authn/assurance.ts';
import { AttemptLimiter, type AttemptTicket } from '../../authn/attempt-limiter.ts';
import { unreportedAttempts } from '../../authn/attempt-metrics.ts';
import type { AttemptOutcome } from '../../authn/attempt-record.ts';
import { attemptCounter, userHandleCounter } from '../../authn/attempt-subject.ts';
import { recordAuthnAttempt } from '../../authn/audit.ts';
import { authenticationFailed } from '../../authn/login-flow.ts';
import { type AmrValue, issuePersonToken, type PersonLogin, type SignIn } from '../../authn/person-token.ts';
import { completeSignIn, openTicket, type SecondFactorProof, ticketHashOf } from '../../authn/second-factor.ts';
import { ApiError } from '../../errors/api-error.ts';
import type { AttemptCounter } from '../../store/authn/store.ts';
import type { Handle, Organization, Person } from '../../store/types.ts';
import { DISCOVERABLE_LOGIN_SUBJECT, type WebAuthnChallenge } from '../../store/webauthn-challenges/store.ts';
import { amrOfAssertion } from './authenticator-amr.ts';
import { admitLoginCeremony } from './ceremonies-per-source.ts';
import { keepChallenge } from './challenges.ts';
import { checkAssertion } from './check-assertion.ts';
import type { WebAuthnDeps } from './deps.ts';
import { assertionOptions, readStoredPublicKeyParams } from './index.ts';
import { relyingPartyOf } from './relying-party.ts';
import { idOfUserHandle } from './user-handle.ts';

const PUBLIC_KEY = 'public-key';

/**
 * POST /authn/webauthn/options: a login challenge for the person the handle names, or, with no
 * handle (null), for a discoverable login, whose person the assertion's user handle names at
 * verify. The options never list the person's credentials (allowCredentials is empty for
 * everyone, so the browser offers a discoverable passkey): a handle that names nobody gets
 * options of the same shape, from the same work, and the answer does not tell whether it exists.
 * `handle` must be canonical (canonicalLoginHandle), so every spelling counts as one.
 */
export async function startLogin(
  deps: WebAuthnDeps,
  org: Organization,
  handle: Handle | null,
  /** The client address (request.ip): a login ceremony needs no credential, so starts are bounded per address. */
  source: string,
): Promise<{ challenge_id: string; options: PublicKeyCredentialRequestOptionsJSON }> {
  // An organisation without passkeys refuses first: a refusal counts nothing.
  relyingPartyOf(org);
  await admitLoginCeremony(deps.store, org.id, source, deps.now());
  const person = handle ? await deps.store.findPersonByHandle(org.id, handle) : undefined;
  return keepLoginChallenge(deps, org, handle, person?.id ?? null, []);
}

/**
 * POST /authn/webauthn/options with a second-factor ticket: the options for the ticket's person,
 * whose password was right, so their passkeys may be listed (a security key that keeps no
 * discoverable credential needs them), counted on the handle the password was checked for.
 */
export async function startSecondFactorLogin(
  deps: WebAuthnDeps,
  org: Organization,
  ticketHash: string,
  /** The client address: a ticket may start any number of ceremonies, so they count as every login ceremony does. */
  source: string,
): Promise<{ challenge_id: string; options: PublicKeyCredentialRequestOptionsJSON }> {
  const ticket = await openTicket(deps, org, ticketHash);
  relyingPartyOf(org);
  await admitLoginCeremony(deps.store, org.id, source, deps.now());
  return keepLoginChallenge(deps, org, ticket.handle, ticket.personId, await passkeyIdsOf(deps, org, ticket.personId));
}

/**
 * A passkey login for a known person (the console's confirmation of a sensitive action): their
 * passkeys listed, counted on their first handle's counter as a login by that handle would be.
 */
export async function startLoginOfPerson(
  deps: WebAuthnDeps,
  org: Organization,
  person: Pick<Person, 'id' | 'handles'>,
): Promise<{ challenge_id: string; options: PublicKeyCredentialRequestOptionsJSON }> {
  return keepLoginChallenge(deps, org, person.handles[0] ?? null, person.id, await passkeyIdsOf(deps, org, person.id));
}

/** The WebAuthn credential ids of the person's passkeys: what options list for a person already known. */
async function passkeyIdsOf(deps: WebAuthnDeps, org: Organization, personId: string): Promise<string[]> {
  const passkeys = await deps.store.listCredentialsOfType(org.id, personId, PUBLIC_KEY);
  return passkeys.map((c) => readStoredPublicKeyParams(c.params).webauthn_credential_id);
}

async function keepLoginChallenge(
  deps: WebAuthnDeps,
  org: Organization,
  handle: Handle | null,
  personId: string | null,
  allowCredentialIds: string[],
): Promise<{ challenge_id: string; options: PublicKeyCredentialRequestOptionsJSON }> {
  const { rpId } = relyingPartyOf(org);
  const options = await assertionOptions({ rpId, allowCredentialIds });
  const challengeId = await keepChallenge(deps.store, deps.now(), {
    orgId: org.id,
    purpose: 'login',
    personId,
    // The handle's counter, chosen now: the verify call names only the challenge. Without a
    // handle the counter is the user handle's, which only the assertion tells.
    subject: handle ? attemptCounter({ orgId: org.id, handle, personId, credentialType: PUBLIC_KEY }, deps.hashCode).subject : DISCOVERABLE_LOGIN_SUBJECT,
    challenge: options.challenge,
  });
  return { challenge_id: challengeId, options };
}

/**
 * What a login attempt is judged against: the spent challenge (base64url), the counter the attempt
 * is counted on (whose personId is the person, or null) and the audit word for a counter that names
 * nobody; or, when there is nothing to count it against (no such challenge; a discoverable login
 * whose assertion names no id), why.
 */
type LoginTarget = { kind: 'counted'; challenge: string; counter: AttemptCounter; nobody: string } | { kind: 'uncounted'; reason: string };

async function targetOf(deps: WebAuthnDeps, org: Organization, challenge: WebAuthnChallenge | undefined, response: unknown): Promise<LoginTarget> {
  // Unknown, spent (a replay, or one of many concurrent uses) or expired.
  if (!challenge) return { kind: 'uncounted', reason: 'no_such_challenge' };
  if (challenge.subject !== DISCOVERABLE_LOGIN_SUBJECT) {
    const counter = { orgId: org.id, subject: challenge.subject, personId: challenge.personId, credentialType: PUBLIC_KEY };
    return { kind: 'counted', challenge: challenge.challenge, counter, nobody: 'unknown_handle' };
  }
  const named = idOfUserHandle(response);
  if (named.kind === 'none') return { kind: 'uncounted', reason: named.reason };
  // Of this organisation only: a person of another one is nobody here, counted as such.
  const person = await deps.store.getPerson(org.id, named.id);
  const counter = userHandleCounter({ orgId: org.id, namedId: named.id, personId: person?.id ?? null }, deps.hashCode);
  return { kind: 'counted', challenge: challenge.challenge, counter, nobody: 'unknown_user_handle' };
}

/**
 * POST /authn/webauthn/verify: the passkey login (authenticateWithPasskey), alone or as the second
 * factor of the ticket's sign-in, answered with a person JWT.
 */
export async function finishLogin(
  deps: WebAuthnDeps,
  org: Organization,
  body: { challenge_id: string; response: unknown; second_factor_ticket?: string | undefined },
  onRefused: (reason: string) => void,
): Promise<PersonLogin> {
  const ticket = body.second_factor_ticket;
  const signIn =
    ticket === undefined
      ? await passkeySignIn(deps, org, await authenticateWithPasskey(deps, org, body, onRefused))
      : await completeSignIn(deps, org, ticketHashOf(ticket), 'webauthn', () => authenticateWithPasskey(deps, org, body, onRefused));
  return issuePersonToken(deps.issuer, org, signIn);
}

/** A sign-in by a passkey alone: the person as they are now (a deletion since the assertion is a failure, as any). */
export async function passkeySignIn(deps: Pick<WebAuthnDeps, 'store' | 'now'>, org: Organization, proof: SecondFactorProof): Promise<SignIn> {
  const person = await deps.store.getPerson(org.id, proof.personId);
  if (!person) throw authenticationFailed();
  return { personId: person.id, amr: proof.amr, authTime: deps.now(), generation: person.generation };
}

/**
 * Spends the challenge (once, whichever replica asks first), finds its person (the handle's,
 * from the options; a discoverable login's, from the user handle), counts the attempt on its
 * counter, verifies the assertion against that person's passkey the response names and writes
 * the counter back: the person and the amr a token or session of theirs would carry. Every
 * failure throws the one 401 (or 429). Apart from finishLogin for callers that open a session
 * of their own rather than take a JWT (the console).
 */
export async function authenticateWithPasskey(
  deps: WebAuthnDeps,
  org: Organization,
  body: { challenge_id: string; response: unknown },
  onRefused: (reason: string) => void,
): Promise<SecondFactorProof> {
  const { store, now } = deps;
  const relyingParty = relyingPartyOf(org);
  // Unlike registration's, this spend names no person: a login has no caller to check before its
  // assertion, and the assertion is judged only after the spend, so that one of many uses is judged.
  const challenge = await store.spendWebAuthnChallenge(org.id, body.challenge_id, 'login', now());
  const target = await targetOf(deps, org, challenge, body.response);
  const personId = target.kind === 'counted' ? target.counter.personId : null;
  const audit = (outcome: AttemptOutcome, reason: string | null, credentialId: string | null = null) =>
    recordAuthnAttempt(store, now, { orgId: org.id, method: 'webauthn', personId, credentialId, outcome, reason }, deps.attemptMetrics ?? unreportedAttempts);
  if (target.kind === 'uncounted') {
    await audit('failure', target.reason);
    throw authenticationFailed();
  }

  let ticket: AttemptTicket;
  try {
    ticket = await new AttemptLimiter(store, now, deps.attemptMetrics).begin(target.counter);
  } catch (error) {
    if (error instanceof ApiError && error.code === 'TOO_MANY_ATTEMPTS') await audit('refused', 'too_many_attempts');
    throw error;
  }

  let outcome: Awaited<ReturnType<typeof checkAssertion>>;
  try {
    outcome =
      personId === null
        ? { kind: 'failure', reason: target.nobody, credentialId: null }
        : await checkAssertion(store, { orgId: org.id, personId, challenge: target.challenge, response: body.response, relyingParty, onRefused });
  } catch (error) {
    // Nothing was judged (the store failed): the attempt is taken back.
    await ticket.abandoned();
    await audit('refused', 'error').catch(() => {});
    throw error;
  }

  const refuseClone = outcome.kind === 'success' && outcome.cloneWarning && org.config.webauthn_refuse_clone_warning;
  if (outcome.kind === 'failure' || refuseClone || personId === null) {
    await ticket.failed();
    await audit('failure', outcome.kind === 'failure' ? outcome.reason : 'clone_warning', outcome.credentialId);
    throw authenticationFailed();
  }
  await store.touchCredentialLastUsed(org.id, outcome.credentialId, now());
  await ticket.succeeded();
  await audit('success', outcome.cloneWarning ? 'clone_warning' : null, outcome.credentialId);
  // With the user verified (a PIN or biometric), the passkey is two factors in one (design §5).
  const methods: AmrValue[] = outcome.userVerified ? [amrOfAssertion(body.response), 'user'] : [amrOfAssertion(body.response)];
  return { personId, amr: withTwoFactors(methods) };
}
