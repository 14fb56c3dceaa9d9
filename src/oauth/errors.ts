import { type OAuthErrorCode, oauthErrorStatus } from '../errors/catalogue.ts';
import { CodedError } from '../errors/coded-error.ts';
import { StorageUnavailableError } from '../store/store.ts';

export type { OAuthErrorCode } from '../errors/catalogue.ts';

/** An RFC 6749 error; `message` is its error_description. Made by oauthError(), not by hand. */
export class OAuthError extends CodedError<OAuthErrorCode> {
  /** The registered client the request tried to authenticate as: its organisation audits the refusal. */
  readonly attemptedClient: AttemptedClient | undefined;
  constructor(code: OAuthErrorCode, description: string, headers: Record<string, string> = {}, attemptedClient?: AttemptedClient) {
    super('oauth', code, oauthErrorStatus[code], description, { headers });
    this.name = 'OAuthError';
    this.attemptedClient = attemptedClient;
  }
}

export interface AttemptedClient {
  id: string;
  orgId: string;
}

/** invalid_client: 401 with a challenge (RFC 6749 §5.2), whichever way the client tried to authenticate. */
export class InvalidClient extends OAuthError {
  constructor(description: string, attemptedClient?: AttemptedClient) {
    super('invalid_client', description, { 'www-authenticate': 'Basic realm="tessera", charset="UTF-8"' }, attemptedClient);
  }
}

/** Codes a handler may refuse with; server_error is only ever the serializer's answer to the unexpected. */
type PlainCode = Exclude<OAuthErrorCode, 'invalid_client' | 'temporarily_unavailable' | 'server_error'>;

/**
 * The one way to make an OAuth error, by RFC error code. invalid_client may name the client
 * that tried (for the audit); temporarily_unavailable says when to ask again (Retry-After).
 */
export function oauthError(code: 'invalid_client', description: string, options?: { attemptedClient?: AttemptedClient }): InvalidClient;
export function oauthError(
  code: 'temporarily_unavailable',
  description: string,
  options: { retryAfterSeconds: number; attemptedClient?: AttemptedClient },
): OAuthError;
export function oauthError(code: PlainCode, description: string): OAuthError;
export function oauthError(
  code: OAuthErrorCode,
  description: string,
  options: { attemptedClient?: AttemptedClient; retryAfterSeconds?: number } = {},
): OAuthError {
  if (code === 'invalid_client') return new InvalidClient(description, options.attemptedClient);
  if (code === 'temporarily_unavailable') {
    return new OAuthError(code, description, { 'retry-after': String(Math.max(1, Math.ceil(options.retryAfterSeconds ?? 1))) }, options.attemptedClient);
  }
  return new OAuthError(code, description);
}

export interface OAuthErrorResponse {
  status: number;
  body: { error: OAuthErrorCode; error_description: string };
  headers: Record<string, string>;
}

const NO_STORE = { 'cache-control': 'no-store', pragma: 'no-cache' };

function respond(error: OAuthError): OAuthErrorResponse {
  return { status: error.status, body: { error: error.code, error_description: error.message }, headers: { ...NO_STORE, ...error.headers } };
}

/**
 * The one serializer, by error family: OAuth errors as they are; a service API error that
 * means "not now" (the instance shutting down, 503) as temporarily_unavailable with its
 * headers; a lost database as temporarily_unavailable; anything else as server_error.
 */
export function toOAuthErrorResponse(error: unknown): OAuthErrorResponse {
  if (error instanceof CodedError) {
    switch (error.family) {
      case 'oauth':
        return respond(error as OAuthError);
      case 'api':
        if (error.status === 503) return respond(new OAuthError('temporarily_unavailable', error.message, { ...error.headers }));
        break;
      case 'gateway':
        break;
    }
  }
  if (error instanceof StorageUnavailableError) {
    return respond(oauthError('temporarily_unavailable', 'the database is unreachable; retry shortly', { retryAfterSeconds: 1 }));
  }
  return { status: 500, body: { error: 'server_error', error_description: 'an unexpected error occurred; it has been logged' }, headers: { ...NO_STORE } };
}
