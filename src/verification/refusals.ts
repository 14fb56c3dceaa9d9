import { ApiError } from '../errors/api-error.ts';
import { MAX_WRONG_CODES } from './deps.ts';

export function noOpenVerification(): ApiError {
  return new ApiError('NOT_FOUND', 'body.verification_id: no open verification has this id (unknown, expired, already used or closed)');
}

export function identityNotVerifiable(): ApiError {
  const message = 'verification: the identity is no longer in its connection, active, at the address the code went to; the verification is closed';
  return new ApiError('IDENTITY_NOT_VERIFIABLE', message);
}

export function tooManyWrongCodes(): ApiError {
  return new ApiError('TOO_MANY_VERIFICATION_ATTEMPTS', `verification: closed after ${MAX_WRONG_CODES} wrong codes; initiate a new one`);
}

export function attemptsInFlight(): ApiError {
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
