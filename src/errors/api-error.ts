import { errorCatalogue, type ErrorCode } from './catalogue.ts';

/** An error the caller caused or may act on; its message is safe to show to the caller. */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  /** Extra response headers, e.g. Retry-After. */
  readonly headers: Readonly<Record<string, string>>;

  constructor(code: ErrorCode, message: string, headers: Record<string, string> = {}) {
    super(message);
    this.name = 'ApiError';
    this.code = code;
    this.status = errorCatalogue[code].status;
    this.headers = headers;
  }
}

/** A 400 naming the field (dotted path, e.g. `body.handles[0].value`) and the rule it breaks. */
export function invalidField(field: string, rule: string): ApiError {
  return new ApiError('INVALID_FIELD', `${field}: ${rule}`);
}
