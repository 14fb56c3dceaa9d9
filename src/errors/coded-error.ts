/**
 * Which wire format answers an error: the service API's envelope, RFC 6749's JSON, the
 * gateway's envelope, or RFC 7644's SCIM Error. Error handlers branch on this, never on the
 * class or the status.
 */
export type ErrorFamily = 'api' | 'oauth' | 'gateway' | 'scim';

export interface CodedErrorOptions {
  /** Extra response headers, e.g. Retry-After or a WWW-Authenticate challenge. */
  headers?: Record<string, string>;
  /** For the log only; never part of the response. */
  cause?: unknown;
}

/**
 * An error the caller caused or may act on. `code` is stable and machine-readable (listed in
 * docs/errors.md); `message` is written per occurrence and is safe to show to the caller;
 * `status` comes from the family's catalogue, so a code always answers with one status.
 */
export class CodedError<Code extends string = string> extends Error {
  readonly family: ErrorFamily;
  readonly code: Code;
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;

  constructor(family: ErrorFamily, code: Code, status: number, message: string, options: CodedErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.family = family;
    this.code = code;
    this.status = status;
    this.headers = options.headers ?? {};
  }
}
