import { type TSchema, Type } from 'typebox';
import type { ApiError } from '../errors/api-error.ts';

/** Spec §2.2: every non-OAuth response is `{ result, meta, errors }`. */
export const ErrorItem = Type.Object({
  httpcode: Type.Integer(),
  message: Type.String(),
  code: Type.String({ description: 'Stable error code, see docs/errors.md' }),
});

export const ErrorEnvelope = Type.Object({ errors: Type.Array(ErrorItem) }, { description: 'Error envelope (spec §2.2)' });

export const CursorPagination = Type.Object({
  limit: Type.Integer(),
  next_cursor: Type.Optional(Type.String()),
  prev_cursor: Type.Optional(Type.String()),
  last_cursor: Type.String(),
  total_count: Type.Optional(Type.Integer({ description: 'On the first page only' })),
});

export function Envelope<T extends TSchema>(result: T) {
  return Type.Object({ result });
}

export function ListEnvelope<T extends TSchema>(item: T) {
  return Type.Object({ result: Type.Array(item), meta: Type.Object({ cursor_pagination: CursorPagination }) });
}

export function errorBody(status: number, errors: readonly { code: string; message: string }[]) {
  return { errors: errors.map(({ code, message }) => ({ httpcode: status, message, code })) };
}

export function apiErrorBody(error: ApiError) {
  return errorBody(error.status, [error]);
}

/** Error responses every route may give; merged into each route's `response` schema. */
export const commonErrors = {
  400: ErrorEnvelope,
  401: ErrorEnvelope,
  403: ErrorEnvelope,
  404: ErrorEnvelope,
  409: ErrorEnvelope,
  413: ErrorEnvelope,
  415: ErrorEnvelope,
  503: ErrorEnvelope,
} as const;
