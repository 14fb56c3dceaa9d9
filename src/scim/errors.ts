import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ScimErrorCode } from '../errors/catalogue.ts';
import { CodedError } from '../errors/coded-error.ts';
import { toErrorResponse } from '../http/error-handler.ts';
import { ScimError } from '../scim-user/scim-error.ts';
import { ConflictError } from '../store/store.ts';

export const ERROR_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:Error';
export const SCIM_CONTENT_TYPE = 'application/scim+json; charset=utf-8';

/** The codes that are RFC 7644 §3.12 scimType values, sent as such; the rest set only status. */
const scimTypes: ReadonlySet<ScimErrorCode> = new Set([
  'invalidFilter',
  'invalidPath',
  'invalidSyntax',
  'invalidValue',
  'mutability',
  'noTarget',
  'uniqueness',
]);

/** RFC 7644 §3.12: `status` is the HTTP status as a string. */
export function scimErrorBody(status: number, detail: string, scimType?: string) {
  return { schemas: [ERROR_SCHEMA], status: String(status), ...(scimType ? { scimType } : {}), detail };
}

/**
 * The SCIM scope's one error handler. Its own errors keep their scimType; everything the
 * scope shares with the JSON API (bad JSON, a body too large, the database down, shutdown)
 * keeps the API's status, message and headers but is written as a SCIM Error, so a
 * provider never meets the envelope.
 */
export function sendScimError(thrown: unknown, request: FastifyRequest, reply: FastifyReply): void {
  const error =
    thrown instanceof ConflictError && thrown.subject === 'identity_user_name'
      ? new ScimError('uniqueness', 'userName: another user of this connection has this userName (compared case-insensitively)')
      : thrown;
  let status: number;
  let detail: string;
  let scimType: string | undefined;
  let headers: Record<string, string> = {};
  if (error instanceof CodedError && error.family === 'scim') {
    ({ status, message: detail, headers } = error as ScimError);
    scimType = scimTypes.has(error.code as ScimErrorCode) ? error.code : undefined;
  } else {
    const response = toErrorResponse(error);
    const first = response.errors[0]!;
    if (first.code === 'INTERNAL_ERROR') request.log.error({ err: error }, 'SCIM request failed');
    status = response.status;
    detail = first.code === 'UNSUPPORTED_MEDIA_TYPE' ? 'header Content-Type: must be application/scim+json or application/json' : first.message;
    if (first.code === 'MALFORMED_JSON') scimType = 'invalidSyntax';
    headers = response.headers ?? {};
  }
  reply
    .code(status)
    .headers(headers)
    .type(SCIM_CONTENT_TYPE)
    .send(scimErrorBody(status, detail, scimType));
}
