import { ApiError, invalidField } from '../errors/api-error.ts';
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
import { isActive } from './verifiable.ts';

export interface VerifyRequest {
  verification_id: string;
  code: string;
  connection_id: string;
}

/**
 * Checks a code, in design §6's order once the door has authenticated the caller
 * and validated the body: the verification is open (404; 429 once closed for too many wrong
 * codes) → same connection (400) → the operator is a verifier (403) → the operator's rate
 * limit (429) → the code (a
 * wrong one is counted: 200 verified false) → the deny-gate: the identity is read again from
 * its connection and must still be there, active and at the address the code went to (403,
 * and the verification is closed; a source that cannot be read is 503 and nothing is counted)
 * → spent, once, whoever else tries the same code at the same moment.
 */
export async function verifyCode(
  deps: VerificationDeps,
  org: Organization,
  caller: VerificationCaller,
  operator: Operator,
  body: VerifyRequest,
  /** The door's operator rule (403), checked in its place in the order; answers the operator's person id. */
  checkOperator: () => Promise<string>,
): Promise<{ verified: boolean }> {
  const { store, directory, hasher, now } = deps;
  const audit = (outcome: string, reason: string | null, verification?: EmailVerification) =>
    recordEvent(store, now(), org.id, 'verification.attempt', {
      ...callerData(caller),
      operator_email: operator.email,
      operator_assertion: operator.assertion,
      verification_id: body.verification_id,
      connection_id: body.connection_id,
      identity_id: verification?.identityId ?? null,
      outcome,
      reason,
    });
  const refuse = async (error: ApiError, reason: string, verification?: EmailVerification): Promise<never> => {
    await audit('refused', reason, verification);
    throw error;
  };

  const verification = await store.getEmailVerification(org.id, body.verification_id);
  if (verification?.state === 'closed' && verification.closedReason === 'too_many_attempts') {
    return refuse(tooManyWrongCodes(), 'too_many_attempts', verification);
  }
  if (verification?.state !== 'open' || verification.expiresAt <= now()) {
    return refuse(noOpenVerification(), verification ? `${verification.state}${verification.expiresAt <= now() ? '_expired' : ''}` : 'unknown');
  }
  if (verification.connectionId !== body.connection_id) {
    return refuse(invalidField('body.connection_id', 'is not the connection the verification was initiated for'), 'connection_mismatch', verification);
  }
  let operatorId: string;
  try {
    operatorId = await checkOperator();
  } catch (error) {
    await audit('refused', 'operator_not_verifier', verification);
    throw error;
  }
  // Per person, not per address: a verifier with several email handles is one operator.
  const byOperator = await store.takeRateLimit({ orgId: org.id, key: `verify-operator:${operatorId}`, now: now(), ...OPERATOR_LIMIT });
  if (!byOperator.allowed) return refuse(operatorRateLimited(byOperator.retryAfterMs), 'operator_rate_limited', verification);
  // Per identity, across its verifications: a new initiate is a new five, and must not be a new
  // budget for guessing that identity's codes.
  const byIdentity = await store.takeRateLimit({ orgId: org.id, key: identityKey('verify', verification), now: now(), ...IDENTITY_VERIFY_LIMIT });
  if (!byIdentity.allowed) return refuse(identityRateLimited(byIdentity.retryAfterMs), 'identity_rate_limited', verification);

  // The attempt is taken before the code is compared, so no more codes are ever compared than
  // the limit, however many arrive at once.
  const taken = await store.takeEmailVerificationAttemptIf(org.id, verification.id, now(), MAX_WRONG_CODES);
  if (!taken.taken) {
    const current = await store.getEmailVerification(org.id, verification.id);
    if (current?.closedReason === 'too_many_attempts') return refuse(tooManyWrongCodes(), 'too_many_attempts', verification);
    // Still open and unexpired, yet no attempt was left at the take: verifies in flight held them
    // all (one may have given its attempt back since), and none was judged wrong five times, so
    // "closed after five wrong codes" would not be true, nor "no open verification".
    // (Not when it expired meanwhile: that is "no longer open", like any expired one.)
    if (current?.state === 'open' && current.expiresAt > now()) {
      return refuse(attemptsInFlight(), 'too_many_attempts', verification);
    }
    return refuse(noOpenVerification(), 'no_longer_open', verification);
  }
  if (!hasher.codeMatches(verification.id, body.code, verification.codeHash)) {
    const last = taken.attempts >= MAX_WRONG_CODES;
    if (last) await store.closeEmailVerification(org.id, verification.id, 'too_many_attempts', now());
    await audit('wrong_code', last ? 'closed_after_too_many' : null, verification);
    return { verified: false };
  }

  // The deny-gate. Its read is the moment of decision: a removal the source records after it is
  // ordered after this verification. A source that cannot answer refuses (fail closed), with
  // nothing counted: the operator may retry once it is back.
  let identity: Awaited<ReturnType<typeof directory.lookup>>;
  try {
    identity = await directory.lookup(org.id, verification.connectionId, { identityId: verification.identityId });
  } catch (error) {
    await store.giveBackEmailVerificationAttempt(org.id, verification.id);
    await audit('refused', 'source_unavailable', verification);
    throw error;
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
    return refuse(identityNotVerifiable(), removal, verification);
  }
  if (!(await store.spendEmailVerificationIf(org.id, verification.id, now()))) {
    return refuse(noOpenVerification(), 'no_longer_open', verification);
  }
  await audit('verified', null, verification);
  return { verified: true };
}

function sameAddress(current: string | null, sentTo: string): boolean {
  return current !== null && canonicalEmailAddress(current) === canonicalEmailAddress(sentTo);
}

function noOpenVerification(): ApiError {
  return new ApiError('NOT_FOUND', 'body.verification_id: no open verification has this id (unknown, expired, already used or closed)');
}

function identityNotVerifiable(): ApiError {
  const message = 'verification: the identity is no longer in its connection, active, at the address the code went to; the verification is closed';
  return new ApiError('IDENTITY_NOT_VERIFIABLE', message);
}

function tooManyWrongCodes(): ApiError {
  return new ApiError('TOO_MANY_VERIFICATION_ATTEMPTS', `verification: closed after ${MAX_WRONG_CODES} wrong codes; initiate a new one`);
}

function attemptsInFlight(): ApiError {
  return new ApiError(
    'TOO_MANY_VERIFICATION_ATTEMPTS',
    `verification: all ${MAX_WRONG_CODES} attempts are taken by verifies still in progress; initiate a new one if none of them succeeds`,
  );
}

function retryAfter(retryAfterMs: number): { seconds: number; headers: Record<string, string> } {
  const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
  return { seconds, headers: { 'Retry-After': String(seconds) } };
}

/** Also the helpdesk look-up's: too many checks (or look-ups) by one operator. */
export function operatorRateLimited(retryAfterMs: number): ApiError {
  const { seconds, headers } = retryAfter(retryAfterMs);
  return new ApiError('OPERATOR_RATE_LIMITED', `operator: too many verification attempts; retry after ${seconds} s`, headers);
}

/** Also initiate's: too many codes sent to one identity. */
export function identityRateLimited(retryAfterMs: number, what = 'verification attempts'): ApiError {
  const { seconds, headers } = retryAfter(retryAfterMs);
  return new ApiError('IDENTITY_RATE_LIMITED', `identity: too many ${what} for this identity; retry after ${seconds} s`, headers);
}
