import { type Static, Type } from 'typebox';
import { pageDefaults } from '../config/defaults.ts';
import { ApiError } from '../errors/api-error.ts';
import type { Page, PagePosition, PageRequest } from '../store/types.ts';
import type { CursorPagination as CursorPaginationSchema } from './envelope.ts';

type CursorPagination = Static<typeof CursorPaginationSchema>;

export const PageQuery = Type.Object(
  {
    limit: Type.Integer({ minimum: 1, maximum: pageDefaults.maxLimit, default: pageDefaults.limit, description: 'Items per page' }),
    cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 256, description: 'A cursor from a previous page (opaque)' })),
  },
  { additionalProperties: false },
);
export type PageQuery = Static<typeof PageQuery>;

type Direction = 'a' | 'b' | 'l';

/**
 * Cursors are base64url JSON `[list, direction, id]`. Clients must treat them as opaque
 * (spec §2.2); naming the list lets a cursor of one list be refused by another.
 */
function encode(list: string, direction: Direction, id = ''): string {
  return Buffer.from(JSON.stringify([list, direction, id])).toString('base64url');
}

export function pageRequest(list: string, query: PageQuery): PageRequest {
  return { position: query.cursor ? decode(list, query.cursor) : { kind: 'first' }, limit: query.limit };
}

function decode(list: string, cursor: string): PagePosition {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    parsed = undefined;
  }
  // No id holds U+0000 (PostgreSQL could not even compare one that did): such a cursor was forged.
  if (!Array.isArray(parsed) || parsed.length !== 3 || parsed[0] !== list || typeof parsed[2] !== 'string' || parsed[2].includes('\u0000')) {
    throw new ApiError('INVALID_CURSOR', `query.cursor: is not a cursor of this list (${list}); use the cursors the previous page returned`);
  }
  const [, direction, id] = parsed as [string, string, string];
  if (direction === 'a' && id) return { kind: 'after', id };
  if (direction === 'b' && id) return { kind: 'before', id };
  if (direction === 'l') return { kind: 'last' };
  throw new ApiError('INVALID_CURSOR', `query.cursor: is not a cursor of this list (${list}); use the cursors the previous page returned`);
}

/** Builds spec §2.2's cursor_pagination for a page whose items have ids. */
export function listResponse<T, R>(list: string, limit: number, page: Page<T & { id: string }>, present: (item: T) => R) {
  const first = page.items[0];
  const last = page.items.at(-1);
  const meta: CursorPagination = { limit, last_cursor: encode(list, 'l') };
  if (page.hasNext && last) meta.next_cursor = encode(list, 'a', last.id);
  if (page.hasPrevious && first) meta.prev_cursor = encode(list, 'b', first.id);
  if (page.totalCount !== undefined) meta.total_count = page.totalCount;
  return { result: page.items.map(present), meta: { cursor_pagination: meta } };
}
