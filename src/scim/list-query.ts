import { ScimError } from '../scim-user/scim-error.ts';
import type { IdentityQuery } from '../store/identities/store.ts';
import { parseFilter } from './filter.ts';

/** Largest page; ServiceProviderConfig publishes it as filter.maxResults. */
export const MAX_RESULTS = 200;

export interface ListQuery extends IdentityQuery {
  startIndex: number;
  attributes?: string[];
  excludedAttributes?: string[];
}

/** sortBy/sortOrder are ignored, as RFC 7644 §3.4.2.3 asks of a server that does not sort. */
const known = new Set(['filter', 'startIndex', 'count', 'attributes', 'excludedAttributes', 'sortBy', 'sortOrder']);

/**
 * RFC 7644 §3.4.2: startIndex is 1-based (below 1 reads as 1), count non-negative (above the
 * maximum reads as the maximum, negative as 0). Okta always sends startIndex=1&count=100.
 */
export function parseListQuery(query: Record<string, unknown>): ListQuery {
  for (const [key, value] of Object.entries(query)) {
    if (!known.has(key)) throw new ScimError('invalidSyntax', `query.${key}: is not a query parameter of /Users`);
    if (typeof value !== 'string') throw new ScimError('invalidSyntax', `query.${key}: must be given once`);
  }
  const startIndex = Math.max(1, integer(query, 'startIndex') ?? 1);
  const count = Math.min(MAX_RESULTS, Math.max(0, integer(query, 'count') ?? MAX_RESULTS));
  const conditions = query.filter === undefined ? [] : parseFilter(query.filter as string);
  return { conditions, offset: startIndex - 1, count, startIndex, ...attributeLists(query) };
}

function integer(query: Record<string, unknown>, key: string): number | undefined {
  const raw = query[key] as string | undefined;
  if (raw === undefined) return undefined;
  if (!/^-?\d{1,9}$/.test(raw)) throw new ScimError('invalidValue', `query.${key}: must be an integer`);
  return Number(raw);
}

function attributeLists(query: Record<string, unknown>): Pick<ListQuery, 'attributes' | 'excludedAttributes'> {
  const list = (key: string) => (query[key] as string | undefined)?.split(',').map((name) => name.trim().toLowerCase());
  const attributes = list('attributes');
  const excludedAttributes = list('excludedAttributes');
  return { ...(attributes ? { attributes } : {}), ...(excludedAttributes ? { excludedAttributes } : {}) };
}

/** attributes / excludedAttributes on top-level names; id, schemas and meta always stay (RFC 7643 §7 returned "always"). */
export function projectAttributes(resource: Record<string, unknown>, query: Pick<ListQuery, 'attributes' | 'excludedAttributes'>) {
  const always = new Set(['id', 'schemas', 'meta']);
  return Object.fromEntries(
    Object.entries(resource).filter(([key]) => {
      const lower = key.toLowerCase();
      if (always.has(key)) return true;
      if (query.attributes) return query.attributes.some((name) => name === lower || name.startsWith(`${lower}.`));
      return !query.excludedAttributes?.includes(lower);
    }),
  );
}
