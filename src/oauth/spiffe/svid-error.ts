export type SvidErrorCode =
  | 'SVID_MALFORMED'
  | 'SVID_TOO_LARGE'
  | 'SVID_ALG_NOT_ALLOWED'
  | 'SVID_TYP_INVALID'
  | 'SVID_KID_MISSING'
  | 'SVID_SUB_INVALID'
  | 'SVID_TRUST_DOMAIN_UNKNOWN'
  | 'SVID_ID_NOT_ALLOWED'
  | 'SVID_AUD_MISMATCH'
  | 'SVID_EXPIRED'
  | 'SVID_NOT_YET_VALID'
  | 'SVID_EXP_MISSING'
  | 'SVID_SIGNATURE_INVALID'
  | 'SVID_KEY_UNKNOWN'
  | 'SVID_JWKS_UNAVAILABLE';

/**
 * A JWT-SVID that was refused. The message is safe to show to the caller: it never quotes
 * the token, and names no value the caller could not already read from it. SVID_JWKS_UNAVAILABLE
 * is the verifier's side failing (the trust domain's key set could not be had); every other code
 * is the token's fault.
 */
export class SvidError extends Error {
  readonly code: SvidErrorCode;
  /** With SVID_JWKS_UNAVAILABLE: seconds until the key set will be fetched again. */
  readonly retryAfterSeconds: number | undefined;

  constructor(code: SvidErrorCode, message: string, options?: { cause?: unknown; retryAfterSeconds?: number }) {
    super(message, options);
    this.name = 'SvidError';
    this.code = code;
    this.retryAfterSeconds = options?.retryAfterSeconds;
  }
}
