import { StorageUnavailableError } from '../store/store.ts';
import { ApiError } from '../errors/api-error.ts';

/** RFC 6749 §5.2, RFC 7009 §2.2.1 and RFC 8693 §2.2.2 error codes. */
export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'invalid_scope'
  | 'invalid_target'
  | 'unsupported_token_type'
  | 'temporarily_unavailable'
  | 'server_error';

export class OAuthError extends Error {
  readonly error: OAuthErrorCode;
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  constructor(error: OAuthErrorCode, description: string, status = 400, headers: Record<string, string> = {}) {
    super(description);
    this.name = 'OAuthError';
    this.error = error;
    this.status = status;
    this.headers = headers;
  }
}

export class InvalidRequest extends OAuthError {
  constructor(description: string) {
    super('invalid_request', description);
  }
}

/** 401 with a challenge (RFC 6749 §5.2), whichever way the client tried to authenticate. */
export class InvalidClient extends OAuthError {
  /** A registered client whose credentials were wrong: its organisation audits the attempt. */
  readonly attemptedClient: { id: string; orgId: string } | undefined;
  constructor(description: string, attemptedClient?: { id: string; orgId: string }) {
    super('invalid_client', description, 401, { 'www-authenticate': 'Basic realm="tessera", charset="UTF-8"' });
    this.attemptedClient = attemptedClient;
  }
}

export class InvalidGrant extends OAuthError {
  constructor(description: string) {
    super('invalid_grant', description);
  }
}

export class UnauthorizedClient extends OAuthError {
  constructor(description: string) {
    super('unauthorized_client', description);
  }
}

export class UnsupportedGrantType extends OAuthError {
  constructor(description: string) {
    super('unsupported_grant_type', description);
  }
}

export class InvalidScope extends OAuthError {
  constructor(description: string) {
    super('invalid_scope', description);
  }
}

export class InvalidTarget extends OAuthError {
  constructor(description: string) {
    super('invalid_target', description);
  }
}

export class UnsupportedTokenType extends OAuthError {
  constructor(description: string) {
    super('unsupported_token_type', description);
  }
}

/**
 * 503 (RFC 6749 §4.1.2.1's temporarily_unavailable, used here for the token endpoint as well):
 * the server cannot answer now, through no fault of the request; Retry-After says when to ask again.
 */
export class TemporarilyUnavailable extends OAuthError {
  constructor(description: string, retryAfterSeconds: number) {
    super('temporarily_unavailable', description, 503, { 'retry-after': String(Math.max(1, Math.ceil(retryAfterSeconds))) });
  }
}

export interface OAuthErrorResponse {
  status: number;
  body: { error: OAuthErrorCode; error_description: string };
  headers: Record<string, string>;
}

/** The one serializer: known OAuth errors as they are, a lost database as 503, anything else as server_error. */
export function toOAuthErrorResponse(error: unknown): OAuthErrorResponse {
  const headers = { 'cache-control': 'no-store', pragma: 'no-cache' };
  if (error instanceof OAuthError) {
    return { status: error.status, body: { error: error.error, error_description: error.message }, headers: { ...headers, ...error.headers } };
  }
  if (error instanceof ApiError && error.code === 'SHUTTING_DOWN') {
    return { status: 503, body: { error: 'temporarily_unavailable', error_description: error.message }, headers: { ...headers, ...error.headers } };
  }
  if (error instanceof StorageUnavailableError) {
    return toOAuthErrorResponse(new TemporarilyUnavailable('the database is unreachable; retry shortly', 1));
  }
  return { status: 500, body: { error: 'server_error', error_description: 'an unexpected error occurred; it has been logged' }, headers };
}
