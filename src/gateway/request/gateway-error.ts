import { type GatewayErrorCode, gatewayErrorStatus } from '../../errors/catalogue.ts';
import { CodedError } from '../../errors/coded-error.ts';

export type { GatewayErrorCode } from '../../errors/catalogue.ts';

/**
 * A request the gateway answers itself, with its code's status (docs/errors.md). `message`
 * goes to the caller; `cause`, to the log only, and neither ever holds a token.
 */
export class GatewayError extends CodedError<GatewayErrorCode> {
  constructor(code: GatewayErrorCode, message: string, options?: { cause?: unknown; headers?: Record<string, string> }) {
    super('gateway', code, gatewayErrorStatus[code], message, options);
    this.name = 'GatewayError';
  }
}

/** The same envelope as the service's API, so a client reads one error format. */
export function gatewayErrorBody(error: GatewayError): string {
  return JSON.stringify({ errors: [{ httpcode: error.status, message: error.message, code: error.code }] });
}
