import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../errors/api-error.ts';
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
};

/**
 * The single place where anything thrown becomes a response. Known errors keep their
 * status and message; everything unexpected is logged and answered as INTERNAL_ERROR,
 * never with its message or stack.
 */
export function toErrorResponse(error: unknown): ErrorResponse {
  if (error instanceof ApiError) return { status: error.status, errors: [error], headers: { ...error.headers } };
  if (error instanceof ConflictError) return { status: 409, errors: [{ code: 'CONFLICT', message: conflictMessages[error.subject](error) }] };
  if (error instanceof StorageUnavailableError) {
    return { status: 503, errors: [{ code: 'STORAGE_UNAVAILABLE', message: 'the database is unreachable; nothing was written, retry shortly' }], headers: { 'retry-after': '1' } };
  }
  const fastifyError = error as Partial<FastifyError> & { validation?: unknown[]; validationContext?: string };
  if (Array.isArray(fastifyError.validation)) {
    const messages = describeValidationErrors(fastifyError.validationContext ?? 'body', fastifyError.validation as never);
    return { status: 400, errors: messages.map((message) => ({ code: 'INVALID_FIELD', message })) };
  }
  switch (fastifyError.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      // The parser's own message can quote the body, which may hold a secret: never echo it.
      return { status: 400, errors: [{ code: 'MALFORMED_JSON', message: 'body: is not valid JSON' }] };
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return { status: 413, errors: [{ code: 'PAYLOAD_TOO_LARGE', message: 'body: is larger than the limit this service accepts' }] };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return { status: 415, errors: [{ code: 'UNSUPPORTED_MEDIA_TYPE', message: 'header Content-Type: must be application/json' }] };
  }
  if (fastifyError.code === 'FST_ERR_BAD_URL') {
    return { status: 400, errors: [{ code: 'MALFORMED_REQUEST', message: 'path: is not valid percent-encoding' }] };
  }
  if (fastifyError.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    return { status: 400, errors: [{ code: 'INVALID_FIELD', message: `path: a parameter is longer than ${MAX_PARAM_LENGTH} characters` }] };
  }
  if (fastifyError.statusCode && fastifyError.statusCode >= 400 && fastifyError.statusCode < 500) {
    return { status: 400, errors: [{ code: 'MALFORMED_REQUEST', message: 'request: could not be read (check Content-Length and encoding)' }] };
  }
  return { status: 500, errors: [{ code: 'INTERNAL_ERROR', message: 'an unexpected error occurred; it has been logged' }] };
}

export function sendError(error: unknown, request: FastifyRequest, reply: FastifyReply): void {
  const response = toErrorResponse(error);
  if (response.status >= 500 && response.errors[0]?.code === 'INTERNAL_ERROR') request.log.error({ err: error }, 'request failed');
  reply.code(response.status).headers(response.headers ?? {}).send(errorBody(response.status, response.errors));
}

const clientErrors: Record<string, [number, string, string]> = {
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'REQUEST_TIMEOUT', 'request: was not received in time'],
  HPE_HEADER_OVERFLOW: [431, 'HEADERS_TOO_LARGE', 'headers: exceed the size limit'],
};

/**
 * Requests Node's HTTP parser rejects never reach fastify's routing; answer them in the same
 * envelope anyway, so no client ever has to parse a second error format.
 */
export function clientErrorHandler(error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed || !socket.writable) return void socket.destroy();
  const [status, code, message] = clientErrors[error.code ?? ''] ?? [400, 'MALFORMED_REQUEST', 'request: is not valid HTTP/1.1'];
  const body = JSON.stringify(errorBody(status, [{ code, message }]));
  socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
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
    reply.code(404).send(errorBody(404, [{ code: 'ROUTE_NOT_FOUND', message: `${request.method} ${path}: no such operation (see /openapi.json)` }]));
  });
}
