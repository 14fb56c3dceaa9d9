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
