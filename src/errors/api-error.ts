import { type ApiErrorCode, apiErrorStatus } from './catalogue.ts';
import { CodedError } from './coded-error.ts';

/** An error of the service's JSON API; its message is safe to show to the caller. */
export class ApiError extends CodedError<ApiErrorCode> {
  /** `cause` is for the log only (say, why a mail server refused); the caller sees `message`. */
  constructor(code: ApiErrorCode, message: string, headers: Record<string, string> = {}, cause?: unknown) {
    super('api', code, apiErrorStatus[code], message, cause === undefined ? { headers } : { headers, cause });
    this.name = 'ApiError';
  }
}

/** A 400 naming the field (dotted path, e.g. `body.handles[0].value`) and the rule it breaks. */
export function invalidField(field: string, rule: string): ApiError {
  return new ApiError('INVALID_FIELD', `${field}: ${rule}`);
}

/** The 404 of every route that names a person, in the path or the body. */
export function personNotFound(field: 'path.person_id' | 'body.person_id' = 'path.person_id'): ApiError {
  return new ApiError('NOT_FOUND', `${field}: no person of this organisation has this id`);
}

/**
 * The 409 of a passkey whose WebAuthn credential id the organisation holds already, for this
 * person or another (W3C WebAuthn §7.1 step 26: one credential id, one user), naming the field
 * that carried it. Nothing was stored.
 */
export function passkeyAlreadyRegistered(field: 'body.params.webauthn_credential_id' | 'body.response' | 'passkey'): ApiError {
  return new ApiError(
    'PASSKEY_ALREADY_REGISTERED',
    `${field}: this passkey is already registered in the organisation, for this person or another; a passkey belongs to one person`,
  );
}
