import { pageDefaults } from '../../config/defaults.ts';
import { invalidField } from '../../errors/api-error.ts';
import { listResponse, pageRequest } from '../../http/pagination.ts';
import type { Page, PageRequest } from '../../store/types.ts';
import { type Html, html } from '../html.ts';

/** Where a list page stands: the API's own cursors, so the console pages exactly as the API does. */
export interface Cursors {
  previous: string | undefined;
  next: string | undefined;
  last: string;
}

/** The page a console list was asked for by its `cursor` query (400 naming `cursor` for one of another list, or none). */
export function consolePageRequest(list: string, query: unknown, limit: number = pageDefaults.limit): PageRequest {
  const cursor = (query as Record<string, unknown> | undefined)?.cursor;
  if (cursor === undefined || cursor === '') return pageRequest(list, { limit });
  if (typeof cursor !== 'string' || cursor.length > 256) throw invalidField('query.cursor', 'must be one cursor of at most 256 characters');
  return pageRequest(list, { limit, cursor });
}

export function cursorsOf<T extends { id: string }>(list: string, page: Page<T>): Cursors {
  const meta = listResponse(list, pageDefaults.limit, page, (item) => item).meta.cursor_pagination;
  return { previous: meta.prev_cursor, next: meta.next_cursor, last: meta.last_cursor };
}

/** A list page's address with its query (empty values left out), for links. */
export function withQuery(path: string, query: Record<string, string | undefined>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value) search.set(name, value);
  const text = search.toString();
  return text ? `${path}?${text}` : path;
}

/** Previous/Next links; `href` makes a link to the page a cursor names. */
export function pager(href: (cursor: string) => string, previous: string | undefined, next: string | undefined): Html {
  if (!previous && !next) return html``;
  return html`<nav aria-label="Pages" class="pager">
  ${previous && html`<a rel="prev" href="${href(previous)}">Previous page</a>`}
  ${next && html`<a rel="next" href="${href(next)}">Next page</a>`}
</nav>`;
}
