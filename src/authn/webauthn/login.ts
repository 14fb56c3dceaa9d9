import type { PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/server';
import { assertionOptions } from '../../credentials/public-key/index.ts';
import { ApiError } from '../../errors/api-error.ts';
import type { Handle, Organization } from '../../store/types.ts';
import { AttemptLimiter, type AttemptTicket } from '../attempt-limiter.ts';
import { attemptCounter } from '../attempt-subject.ts';
import { type AttemptOutcome, recordAuthnAttempt } from '../audit.ts';
import { authenticationFailed } from '../login-flow.ts';
import { issuePersonToken, type PersonLogin } from '../person-token.ts';
import { amrOfAssertion } from './authenticator-amr.ts';
import { keepChallenge } from './challenges.ts';
import { checkAssertion } from './check-assertion.ts';
import type { WebAuthnDeps } from './deps.ts';
import { relyingPartyOf } from './relying-party.ts';

const PUBLIC_KEY = 'public-key';

/**
 * POST /authn/webauthn/options: a login challenge for the person the handle names. The options
 * never list the person's credentials (allowCredentials is empty for everyone, so the browser
 * offers a discoverable passkey): a handle that names nobody gets options of the same shape,
 * from the same work, and the answer does not tell whether it exists.
 */
export async function startLogin(
  deps: WebAuthnDeps,
  org: Organization,
  handle: Handle,
): Promise<{ challenge_id: string; options: PublicKeyCredentialRequestOptionsJSON }> {
  const { rpId } = relyingPartyOf(org);
  const person = await deps.store.findPersonByHandle(org.id, handle);
  const options = await assertionOptions({ rpId });
  const challengeId = await keepChallenge(deps.store, deps.now(), {
    orgId: org.id,
    purpose: 'login',
    personId: person?.id ?? null,
    // The handle's counter, chosen now: the verify call names only the challenge.
    subject: attemptCounter({ orgId: org.id, handle, personId: person?.id ?? null, credentialType: PUBLIC_KEY }, deps.hashCode).subject,
    challenge: options.challenge,
  });
  return { challenge_id: challengeId, options };
}

/**
 * POST /authn/webauthn/verify: spends the challenge (once, whichever replica asks first), counts
 * the attempt for the challenge's person, verifies the assertion against that person's passkey
 * the response names, writes the counter back and answers a person JWT.
 */
export async function finishLogin(
  deps: WebAuthnDeps,
  org: Organization,
  body: { challenge_id: string; response: unknown },
  onRefused: (reason: string) => void,
): Promise<PersonLogin> {
  const { store, now } = deps;
  const relyingParty = relyingPartyOf(org);
  // Unlike registration's, this spend names no person: a login has no caller to check before its
  // assertion, and the assertion is judged only after the spend, so that one of many uses is judged.
  const challenge = await store.spendWebAuthnChallenge(org.id, body.challenge_id, 'login', now());
  const personId = challenge?.personId ?? null;
  const audit = (outcome: AttemptOutcome, reason: string | null, credentialId: string | null = null) =>
    recordAuthnAttempt(store, now, { orgId: org.id, method: 'webauthn', personId, credentialId, outcome, reason });
  // Unknown, spent (a replay, or one of many concurrent uses) or expired: nothing to count it against.
  if (!challenge) {
    await audit('failure', 'no_such_challenge');
    throw authenticationFailed();
  }

  let ticket: AttemptTicket;
  try {
    ticket = await new AttemptLimiter(store, now).begin({ orgId: org.id, subject: challenge.subject, personId, credentialType: PUBLIC_KEY });
  } catch (error) {
    if (error instanceof ApiError && error.code === 'TOO_MANY_ATTEMPTS') await audit('refused', 'too_many_attempts');
    throw error;
  }

  let outcome: Awaited<ReturnType<typeof checkAssertion>>;
  try {
    outcome =
      personId === null
        ? { kind: 'failure', reason: 'unknown_handle', credentialId: null }
        : await checkAssertion(store, { orgId: org.id, personId, challenge: challenge.challenge, response: body.response, relyingParty, onRefused });
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
  return issuePersonToken(deps.issuer, org, personId, [amrOfAssertion(body.response)]);
}
