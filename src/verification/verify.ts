import { invalidField } from '../errors/api-error.ts';
import { recordEvent } from '../store/audit/record-event.ts';
import type { Organization } from '../store/types.ts';
import type { EmailVerification } from '../store/verifications/store.ts';
import { canonicalEmailAddress } from '../validation/email.ts';
import {
  callerData,
  IDENTITY_VERIFY_LIMIT,
  identityKey,
  MAX_WRONG_CODES,
  OPERATOR_LIMIT,
  type Operator,
  type VerificationCaller,
  type VerificationDeps,
} from './deps.ts';
import { attemptsInFlight, identityNotVerifiable, identityRateLimited, noOpenVerification, operatorRateLimited, tooManyWrongCodes } from './refusals.ts';
import { isActive } from './verifiable.ts';

export interface VerifyRequest {
  verification_id: string;
  code: string;
  connection_id: string;
}

/** One verify as its steps read it. */
interface Attempt {
  deps: VerificationDeps;
  org: Organization;
  body: VerifyRequest;
  /** The door's operator rule (403), checked in its place in the order; answers the operator's person id. */
  checkOperator: () => Promise<string>;
}

/** How a verify ended: what its audit event records, and what the caller is answered. */
type Verdict =
  | { outcome: 'verified'; reason: null; verification: EmailVerification }
  | { outcome: 'wrong_code'; reason: 'closed_after_too_many' | null; verification: EmailVerification }
  | { outcome: 'refused'; reason: string; error: unknown; verification: EmailVerification | undefined };

/** Thrown by a step to end the verify; verifyCode records it and throws its error. */
class Refusal {
  readonly verdict: Verdict;
  constructor(error: unknown, reason: string, verification?: EmailVerification) {
    this.verdict = { outcome: 'refused', reason, error, verification };
  }
}

/**
 * Checks a code, in design §6's order once the door has authenticated the caller and validated
 * the body (the steps of `decide`), and records every attempt, whatever its end, as one audit
 * event before answering.
 */
export async function verifyCode(
  deps: VerificationDeps,
  org: Organization,
  caller: VerificationCaller,
  operator: Operator,
  body: VerifyRequest,
  checkOperator: Attempt['checkOperator'],
): Promise<{ verified: boolean }> {
  const verdict = await decide({ deps, org, body, checkOperator }).catch((thrown: unknown) => {
    // Anything else (the store failing) is no decision: it is answered as it is, unrecorded.
    if (thrown instanceof Refusal) return thrown.verdict;
    throw thrown;
  });
  await recordEvent(deps.store, deps.now(), org.id, 'verification.attempt', {
    ...callerData(caller),
    operator_email: operator.email,
    operator_assertion: operator.assertion,
    verification_id: body.verification_id,
    connection_id: body.connection_id,
    identity_id: verdict.verification?.identityId ?? null,
    outcome: verdict.outcome,
    reason: verdict.reason,
  });
  if (verdict.outcome === 'refused') throw verdict.error;
  return { verified: verdict.outcome === 'verified' };
}

/**
 * The verification is open (404; 429 once closed for too many wrong codes) → same connection
 * (400) → the operator is a verifier (403) → the rate limits (429) → the code (a wrong one is
 * counted: 200 verified false) → the deny-gate (403, or 503 with nothing counted) → spent, once,
 * whoever else tries the same code at the same moment.
 */
async function decide(attempt: Attempt): Promise<Verdict> {
  const verification = await openVerification(attempt);
  sameConnection(attempt, verification);
  const operatorId = await verifier(attempt, verification);
  await withinRateLimits(attempt, verification, operatorId);
  const attempts = await takeAttempt(attempt, verification);
  if (!codeMatches(attempt, verification)) return wrongCode(attempt, verification, attempts);
  await denyGate(attempt, verification);
  return spend(attempt, verification);
}

async function openVerification({ deps: { store, now }, org, body }: Attempt): Promise<EmailVerification> {
  const verification = await store.getEmailVerification(org.id, body.verification_id);
  if (verification?.state === 'closed' && verification.closedReason === 'too_many_attempts') {
    throw new Refusal(tooManyWrongCodes(), 'too_many_attempts', verification);
  }
  if (verification?.state !== 'open' || verification.expiresAt <= now()) {
    throw new Refusal(noOpenVerification(), verification ? `${verification.state}${verification.expiresAt <= now() ? '_expired' : ''}` : 'unknown');
  }
  return verification;
}

function sameConnection({ body }: Attempt, verification: EmailVerification): void {
  if (verification.connectionId !== body.connection_id) {
    throw new Refusal(invalidField('body.connection_id', 'is not the connection the verification was initiated for'), 'connection_mismatch', verification);
  }
}

async function verifier({ checkOperator }: Attempt, verification: EmailVerification): Promise<string> {
  try {
    return await checkOperator();
  } catch (error) {
    throw new Refusal(error, 'operator_not_verifier', verification);
  }
}

async function withinRateLimits({ deps: { store, now }, org }: Attempt, verification: EmailVerification, operatorId: string): Promise<void> {
  // Per person, not per address: a verifier with several email handles is one operator.
  const byOperator = await store.takeRateLimit({ orgId: org.id, key: `verify-operator:${operatorId}`, now: now(), ...OPERATOR_LIMIT });
  if (!byOperator.allowed) throw new Refusal(operatorRateLimited(byOperator.retryAfterMs), 'operator_rate_limited', verification);
  // Per identity, across its verifications: a new initiate is a new five, and must not be a new
  // budget for guessing that identity's codes.
  const byIdentity = await store.takeRateLimit({ orgId: org.id, key: identityKey('verify', verification), now: now(), ...IDENTITY_VERIFY_LIMIT });
  if (!byIdentity.allowed) throw new Refusal(identityRateLimited(byIdentity.retryAfterMs), 'identity_rate_limited', verification);
}

/**
 * Taken before the code is compared, so no more codes are ever compared than the limit,
 * however many arrive at once. Answers how many attempts the verification has had, this one included.
 */
async function takeAttempt({ deps: { store, now }, org }: Attempt, verification: EmailVerification): Promise<number> {
  const taken = await store.takeEmailVerificationAttemptIf(org.id, verification.id, now(), MAX_WRONG_CODES);
  if (taken.taken) return taken.attempts;
  const current = await store.getEmailVerification(org.id, verification.id);
  if (current?.closedReason === 'too_many_attempts') throw new Refusal(tooManyWrongCodes(), 'too_many_attempts', verification);
  // Still open and unexpired, yet no attempt was left at the take: verifies in flight held them
  // all (one may have given its attempt back since), and none was judged wrong five times, so
  // "closed after five wrong codes" would not be true, nor "no open verification".
  // (Not when it expired meanwhile: that is "no longer open", like any expired one.)
  if (current?.state === 'open' && current.expiresAt > now()) throw new Refusal(attemptsInFlight(), 'too_many_attempts', verification);
  throw new Refusal(noOpenVerification(), 'no_longer_open', verification);
}

function codeMatches({ deps: { hasher }, body }: Attempt, verification: EmailVerification): boolean {
  return hasher.codeMatches(verification.id, body.code, verification.codeHash);
}

/** Counted (by its take); the last allowed one closes the verification. */
async function wrongCode({ deps: { store, now }, org }: Attempt, verification: EmailVerification, attempts: number): Promise<Verdict> {
  const last = attempts >= MAX_WRONG_CODES;
  if (last) await store.closeEmailVerification(org.id, verification.id, 'too_many_attempts', now());
  return { outcome: 'wrong_code', reason: last ? 'closed_after_too_many' : null, verification };
}

/**
 * The identity is read again from its connection and must still be there, active and at the
 * address the code went to (else the verification is closed). The read is the moment of
 * decision: a removal the source records after it is ordered after this verification. A source
 * that cannot answer refuses (fail closed), with nothing counted: the operator may retry once
 * it is back.
 */
async function denyGate({ deps: { store, directory, now }, org }: Attempt, verification: EmailVerification): Promise<void> {
  let identity: Awaited<ReturnType<typeof directory.lookup>>;
  try {
    identity = await directory.lookup(org.id, verification.connectionId, { identityId: verification.identityId });
  } catch (error) {
    await store.giveBackEmailVerificationAttempt(org.id, verification.id);
    throw new Refusal(error, 'source_unavailable', verification);
  }
  const removal = !identity
    ? 'identity_removed'
    : !isActive(identity)
      ? 'identity_inactive'
      : !sameAddress(identity.email, verification.emailSentTo)
        ? 'email_changed'
        : null;
  if (removal) {
    await store.closeEmailVerification(org.id, verification.id, 'identity_removed', now());
    throw new Refusal(identityNotVerifiable(), removal, verification);
  }
}

function sameAddress(current: string | null, sentTo: string): boolean {
  return current !== null && canonicalEmailAddress(current) === canonicalEmailAddress(sentTo);
}

/** Once: of verifies racing with the right code, one spends it and the others find it no longer open. */
async function spend({ deps: { store, now }, org }: Attempt, verification: EmailVerification): Promise<Verdict> {
  if (!(await store.spendEmailVerificationIf(org.id, verification.id, now()))) {
    throw new Refusal(noOpenVerification(), 'no_longer_open', verification);
  }
  return { outcome: 'verified', reason: null, verification };
}
