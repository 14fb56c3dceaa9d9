import { type ScimErrorCode, scimErrorStatus } from '../errors/catalogue.ts';
import { CodedError } from '../errors/coded-error.ts';

/** An error of the SCIM server; its message is the Error body's `detail`, safe to show. */
export class ScimError extends CodedError<ScimErrorCode> {
  constructor(code: ScimErrorCode, message: string, headers: Record<string, string> = {}) {
    super('scim', code, scimErrorStatus[code], message, { headers });
    this.name = 'ScimError';
  }
}
