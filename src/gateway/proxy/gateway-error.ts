/** Stable codes of the gateway's own answers (documented in docs/gateway.md). */
export type GatewayErrorCode =
  | 'GATEWAY_BAD_REQUEST_TARGET'
  | 'GATEWAY_BAD_HOST'
  | 'GATEWAY_DUPLICATE_AUTHORIZATION'
  | 'GATEWAY_DUPLICATE_HOST'
  | 'GATEWAY_HOST_MISMATCH'
  | 'GATEWAY_MALFORMED_REQUEST'
  | 'GATEWAY_REQUEST_TIMEOUT'
  | 'GATEWAY_HEADERS_TOO_LARGE'
  | 'GATEWAY_BODY_TOO_LARGE'
  | 'GATEWAY_BODY_TIMEOUT'
  | 'GATEWAY_NO_ROUTE'
  | 'GATEWAY_UPSTREAM_UNREACHABLE'
  | 'GATEWAY_UPSTREAM_TIMEOUT'
  | 'GATEWAY_SHUTTING_DOWN';

/**
 * A request the gateway answers itself. `message` goes to the caller; `cause`, to the log
 * only, and neither ever holds a token.
 */
export class GatewayError extends Error {
  readonly status: number;
  readonly code: string;
  /** Extra response headers, such as a Bearer challenge. */
  readonly headers: Readonly<Record<string, string>>;
  constructor(status: number, code: GatewayErrorCode | (string & {}), message: string, options?: { cause?: unknown; headers?: Record<string, string> }) {
    super(message, options);
    this.name = 'GatewayError';
    this.status = status;
    this.code = code;
    this.headers = options?.headers ?? {};
  }
}

/** The same envelope as the service's API, so a client reads one error format. */
export function gatewayErrorBody(error: GatewayError): string {
  return JSON.stringify({ errors: [{ httpcode: error.status, message: error.message, code: error.code }] });
}
