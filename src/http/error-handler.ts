import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, passkeyAlreadyRegistered } from '../errors/api-error.ts';
import type { ApiErrorCode } from '../errors/catalogue.ts';
import { CodedError } from '../errors/coded-error.ts';
import { answerOnSocket } from '../runtime/socket-answer.ts';
import { ConflictError, StorageUnavailableError } from '../store/store.ts';
import { errorBody } from './envelope.ts';
import { describeValidationErrors } from './validation.ts';

/** Longer path parameters are refused by the router itself, before any schema runs. */
export const MAX_PARAM_LENGTH = 256;

interface ErrorResponse {
  status: number;
  errors: { code: string; message: string }[];
  headers?: Record<string, string>;
}

const conflictMessages: Record<ConflictError['subject'], (e: ConflictError) => string> = {
  organization_name: () => 'name: an organisation with this name already exists',
  api_key_name: () => 'body.name: this organisation already has an API key with this name',
  person_handle: (e) => `body.handles: ${e.handle?.type} ${e.handle?.value} is already used by another person of this organisation`,
  secret: () => 'a generated secret collided; retry the request',
  connection_name: () => 'body.name: this organisation already has a connection with this name',
  identity_user_name: () => 'userName: another identity of this connection has this userName',
  // The credentials routes and the registration name the field themselves (rethrowPasskeyTaken).
  passkey: () => passkeyAlreadyRegistered('passkey').message,
};

/** fastify's own refusals that the envelope names with a code of its own. */
const fastifyRefusals: Record<string, [ApiErrorCode, string]> = {
  // The parser's own message can quote the body, which may hold a secret: never echo it.
  FST_ERR_CTP_INVALID_JSON_BODY: ['MALFORMED_JSON', 'body: is not valid JSON'],
  FST_ERR_CTP_EMPTY_JSON_BODY: ['MALFORMED_JSON', 'body: is not valid JSON'],
  FST_ERR_CTP_BODY_TOO_LARGE: ['PAYLOAD_TOO_LARGE', 'body: is larger than the limit this service accepts'],
  FST_ERR_CTP_INVALID_MEDIA_TYPE: ['UNSUPPORTED_MEDIA_TYPE', 'header Content-Type: must be application/json'],
  FST_ERR_BAD_URL: ['MALFORMED_REQUEST', 'path: is not valid percent-encoding'],
  FST_ERR_MAX_PARAM_LENGTH: ['INVALID_FIELD', `path: a parameter is longer than ${MAX_PARAM_LENGTH} characters`],
};

/** What anything thrown means in the API's terms; undefined for the unexpected. */
function asApiErrors(error: unknown): ApiError[] | undefined {
  if (error instanceof CodedError) return error.family === 'api' ? [error as ApiError] : undefined;
  if (error instanceof ConflictError)
    return [new ApiError(error.subject === 'passkey' ? 'PASSKEY_ALREADY_REGISTERED' : 'CONFLICT', conflictMessages[error.subject](error))];
  if (error instanceof StorageUnavailableError) {
    return [new ApiError('STORAGE_UNAVAILABLE', 'the database is unreachable; nothing was written, retry shortly', { 'retry-after': '1' })];
  }
  const fastifyError = error as Partial<FastifyError> & { validation?: unknown[]; validationContext?: string };
  if (Array.isArray(fastifyError.validation)) {
    const messages = describeValidationErrors(fastifyError.validationContext ?? 'body', fastifyError.validation as never);
    return messages.map((message) => new ApiError('INVALID_FIELD', message));
  }
  const known = fastifyRefusals[fastifyError.code ?? ''];
  if (known) return [new ApiError(...known)];
  if (fastifyError.statusCode && fastifyError.statusCode >= 400 && fastifyError.statusCode < 500) {
    return [new ApiError('MALFORMED_REQUEST', 'request: could not be read (check Content-Length and encoding)')];
  }
  return undefined;
}

/**
 * The single place where anything thrown becomes a response. Known errors keep their
 * code, status and message; everything unexpected is answered as INTERNAL_ERROR, never with
 * its message or stack. The status is always the code's, from the catalogue.
 */
export function toErrorResponse(error: unknown): ErrorResponse {
  const errors = asApiErrors(error) ?? [new ApiError('INTERNAL_ERROR', 'an unexpected error occurred; it has been logged')];
  return { status: errors[0]!.status, errors, headers: { ...errors[0]!.headers } };
}

export function sendError(error: unknown, request: FastifyRequest, reply: FastifyReply): void {
  const response = toErrorResponse(error);
  if (response.errors[0]?.code === 'INTERNAL_ERROR') request.log.error({ err: error }, 'request failed');
  // A known failure of the service's side (502, 503) may carry why in its cause, which the
  // caller never sees (a provider's answer, a mail server's refusal): the log is its place.
  else if (response.status >= 500 && error instanceof CodedError && error.cause !== undefined) {
    request.log.warn({ code: response.errors[0]?.code, err: error.cause }, 'request failed on a dependency');
  }
  reply
    .code(response.status)
    .headers(response.headers ?? {})
    .send(errorBody(response.status, response.errors));
}

/** Node's parser errors that have a code of their own; any other is a malformed request. */
const parserRefusals: Record<string, [ApiErrorCode, string]> = {
  ERR_HTTP_REQUEST_TIMEOUT: ['REQUEST_TIMEOUT', 'request: was not received in time'],
  HPE_HEADER_OVERFLOW: ['HEADERS_TOO_LARGE', 'headers: exceed the size limit'],
};

/**
 * Requests Node's HTTP parser rejects never reach fastify's routing; answer them in the same
 * envelope anyway, so no client ever has to parse a second error format.
 */
export function clientErrorHandler(error: NodeJS.ErrnoException, socket: Socket): void {
  answerOnSocket(socket, error, () => {
    const refusal = new ApiError(...(parserRefusals[error.code ?? ''] ?? ['MALFORMED_REQUEST', 'request: is not valid HTTP/1.1']));
    return { status: refusal.status, body: JSON.stringify(errorBody(refusal.status, [refusal])) };
  });
}

export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler(sendError);
  // While the instance drains, new requests are turned away in the envelope (fastify's own
  // 503 shortcut is off so that they are).
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onRequest', async () => {
    if (closing) throw new ApiError('SHUTTING_DOWN', 'service: this instance is shutting down; retry the request', { 'retry-after': '1', connection: 'close' });
  });
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0];
    const notFound = new ApiError('ROUTE_NOT_FOUND', `${request.method} ${path}: no such operation (see /openapi.json)`);
    reply.code(notFound.status).send(errorBody(notFound.status, [notFound]));
  });
}
