/**
 * Every error code the service's JSON API can answer with. The code is stable and
 * machine-readable; the message beside it is written per occurrence and names the field
 * and the rule. docs/errors.md documents each code (test/errors/catalogue.test.ts checks).
 */
export const errorCatalogue = {
  MALFORMED_JSON: { status: 400, summary: 'The request body is not valid JSON.' },
  MALFORMED_REQUEST: { status: 400, summary: 'The request could not be read (framing, headers or encoding).' },
  INVALID_FIELD: { status: 400, summary: 'A field is missing, unknown, of the wrong type or breaks a rule.' },
  INVALID_HEADER: { status: 400, summary: 'A required header is missing or malformed.' },
  INVALID_CURSOR: { status: 400, summary: 'The pagination cursor was not issued by this list.' },
  UNAUTHENTICATED: { status: 401, summary: 'The API key is missing, unknown or belongs to another organisation.' },
  FORBIDDEN: { status: 403, summary: 'The API key is valid but its kind may not use this operation.' },
  ORGANIZATION_NOT_FOUND: { status: 404, summary: 'No organisation has the id given in Service-OrgID.' },
  NOT_FOUND: { status: 404, summary: 'The addressed resource does not exist in this organisation.' },
  ROUTE_NOT_FOUND: { status: 404, summary: 'No operation has this method and path.' },
  CONFLICT: { status: 409, summary: 'The request collides with existing data (a handle, a name already in use).' },
  REQUEST_TIMEOUT: { status: 408, summary: 'The client did not send the whole request in time.' },
  PAYLOAD_TOO_LARGE: { status: 413, summary: 'The request body is larger than the configured limit.' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, summary: 'The request body is not application/json.' },
  HEADERS_TOO_LARGE: { status: 431, summary: 'The request headers exceed the HTTP parser limit.' },
  STORAGE_UNAVAILABLE: { status: 503, summary: 'The database could not be reached; nothing was written. Retry later.' },
  SHUTTING_DOWN: { status: 503, summary: 'This instance is stopping; retry, another replica will answer.' },
  INTERNAL_ERROR: { status: 500, summary: 'An unexpected fault; details are in the service log, never in the response.' },
} as const satisfies Record<string, { status: number; summary: string }>;

export type ErrorCode = keyof typeof errorCatalogue;
