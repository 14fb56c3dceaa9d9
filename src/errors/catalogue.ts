/**
 * Every code the service and the gateway can answer with, by family, with its HTTP status.
 * docs/errors.md says when each is used; test/errors/catalogue.test.ts checks that the two
 * lists agree and that every code here is answered somewhere in src/.
 */

/** The service's JSON API envelope `{"errors":[{httpcode, message, code}]}`. */
export const apiErrorStatus = {
  MALFORMED_JSON: 400,
  MALFORMED_REQUEST: 400,
  INVALID_FIELD: 400,
  INVALID_HEADER: 400,
  INVALID_CURSOR: 400,
  UNAUTHENTICATED: 401,
  INSUFFICIENT_USER_AUTHENTICATION: 401,
  SECOND_FACTOR_TICKET_INVALID: 401,
  FORBIDDEN: 403,
  CSRF_TOKEN_INVALID: 403,
  ORGANIZATION_NOT_FOUND: 404,
  NOT_FOUND: 404,
  ROUTE_NOT_FOUND: 404,
  CONFLICT: 409,
  WEBAUTHN_NOT_CONFIGURED: 409,
  PASSKEY_ALREADY_REGISTERED: 409,
  REQUEST_TIMEOUT: 408,
  PAYLOAD_TOO_LARGE: 413,
  TOO_MANY_ATTEMPTS: 429,
  TOO_MANY_LOGINS_IN_FLIGHT: 429,
  TOO_MANY_CEREMONIES: 429,
  TOO_MANY_VERIFICATION_ATTEMPTS: 429,
  OPERATOR_RATE_LIMITED: 429,
  IDENTITY_RATE_LIMITED: 429,
  IDENTITY_NOT_VERIFIABLE: 403,
  EMAIL_NOT_SENT: 502,
  UNSUPPORTED_MEDIA_TYPE: 415,
  HEADERS_TOO_LARGE: 431,
  STORAGE_UNAVAILABLE: 503,
  SHUTTING_DOWN: 503,
  SERVICE_NOT_READY: 503,
  INTERNAL_ERROR: 500,
  PASSWORD_CHECKS_BUSY: 503,
  IDENTITY_SOURCE_UNAVAILABLE: 503,
} as const satisfies Record<string, number>;
export type ApiErrorCode = keyof typeof apiErrorStatus;

/** The OAuth endpoints' `{"error", "error_description"}` (RFC 6749 §5.2, RFC 7009, RFC 8693 §2.2.2). */
export const oauthErrorStatus = {
  invalid_request: 400,
  invalid_client: 401,
  unauthorized_client: 400,
  unsupported_grant_type: 400,
  invalid_scope: 400,
  invalid_target: 400,
  unsupported_token_type: 400,
  // RFC 6749 §4.1.2.1's code, used at the token endpoint as well: the server cannot answer now.
  temporarily_unavailable: 503,
  server_error: 500,
} as const satisfies Record<string, number>;
export type OAuthErrorCode = keyof typeof oauthErrorStatus;

/** The gateway's own answers, in the service API's envelope. */
export const gatewayErrorStatus = {
  GATEWAY_BAD_REQUEST_TARGET: 400,
  GATEWAY_BAD_HOST: 400,
  GATEWAY_HOST_MISMATCH: 400,
  GATEWAY_DUPLICATE_HOST: 400,
  GATEWAY_DUPLICATE_AUTHORIZATION: 400,
  GATEWAY_MALFORMED_REQUEST: 400,
  GATEWAY_FORWARD_AUTH_CONFLICT: 400,
  GATEWAY_FORWARD_AUTH_FORBIDDEN: 403,
  GATEWAY_SUBJECT_MISSING: 401,
  GATEWAY_SUBJECT_MALFORMED: 401,
  GATEWAY_ACTOR_MISSING: 401,
  GATEWAY_ACTOR_MALFORMED: 401,
  GATEWAY_NO_ROUTE: 404,
  GATEWAY_REQUEST_TIMEOUT: 408,
  GATEWAY_BODY_TIMEOUT: 408,
  GATEWAY_BODY_TOO_LARGE: 413,
  GATEWAY_HEADERS_TOO_LARGE: 431,
  GATEWAY_ACTOR_UNAVAILABLE: 502,
  GATEWAY_SUBJECT_REFUSED: 502,
  GATEWAY_ACTOR_REFUSED: 502,
  GATEWAY_CLIENT_REFUSED: 502,
  GATEWAY_TOKEN_ENDPOINT_REFUSED: 502,
  GATEWAY_TOKEN_ENDPOINT_FAILED: 502,
  GATEWAY_TOKEN_ENDPOINT_MALFORMED: 502,
  GATEWAY_TOKEN_ENDPOINT_TIMEOUT: 502,
  GATEWAY_TOKEN_ENDPOINT_UNREACHABLE: 502,
  GATEWAY_UPSTREAM_UNREACHABLE: 502,
  GATEWAY_UPSTREAM_TIMEOUT: 504,
  GATEWAY_SHUTTING_DOWN: 503,
  GATEWAY_INTERNAL_ERROR: 500,
} as const satisfies Record<string, number>;
export type GatewayErrorCode = keyof typeof gatewayErrorStatus;

/**
 * The SCIM server's own answers (/scim/v2), as RFC 7644 §3.12 Error bodies. The codes that
 * are RFC 7644 scimType values are sent as `scimType`; the others only set `status`. Errors
 * the SCIM scope shares with the API (bad JSON, body too large, database down) keep their
 * API status and message but are written in the SCIM format.
 */
export const scimErrorStatus = {
  invalidFilter: 400,
  invalidPath: 400,
  invalidSyntax: 400,
  invalidValue: 400,
  mutability: 400,
  noTarget: 400,
  unauthorized: 401,
  notFound: 404,
  uniqueness: 409,
} as const satisfies Record<string, number>;
export type ScimErrorCode = keyof typeof scimErrorStatus;
