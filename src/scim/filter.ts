import { comparisonValue, invalidFilter, tokenize } from '../scim-user/filter-tokens.ts';
import type { IdentityCondition } from '../store/identities/store.ts';

const MAX_FILTER_LENGTH = 1024;

/** Which column an attribute path of a filter compares, or undefined if it has none. */
function attributeOf(path: string): IdentityCondition['attribute'] | undefined {
  const lower = path.toLowerCase();
  if (lower === 'username') return 'userName';
  if (lower === 'externalid') return 'externalId';
  if (lower === 'id') return 'id';
  // The identity's email is its work email (else primary); both spellings ask for it.
  if (lower === 'emails.value' || /^emails\[type eq "work"\]\.value$/.test(lower)) return 'email';
  return undefined;
}

/**
 * The filters this server answers: `attribute eq value`, joined by `and`, on userName,
 * externalId, id and the work email (`emails[type eq "work"].value`, also `emails.value`).
 * Everything else of RFC 7644 §3.4.2.2 is refused as invalidFilter, naming what is missing,
 * rather than answered wrongly.
 */
export function parseFilter(filter: string): IdentityCondition[] {
  if (filter.trim() === '') throw invalidFilter('is empty');
  if (filter.length > MAX_FILTER_LENGTH) throw invalidFilter(`is longer than ${MAX_FILTER_LENGTH} characters`);
  const tokens = tokenize(filter);
  const conditions: IdentityCondition[] = [];
  for (let i = 0; i < tokens.length; i += 4) {
    const [path, op, value, joiner] = tokens.slice(i, i + 4);
    if (path?.toLowerCase() === 'not') throw invalidFilter('not( ) is not supported');
    if (!op || value === undefined) {
      if (op?.toLowerCase() === 'pr') throw invalidFilter('the pr operator is not supported; only eq');
      throw invalidFilter('expected attribute eq "value"');
    }
    if (op.toLowerCase() !== 'eq') throw invalidFilter(`the ${op} operator is not supported; only eq (and and)`);
    const attribute = attributeOf(path!);
    if (!attribute) throw invalidFilter(`filtering on ${path} is not supported; use userName, externalId, id or emails[type eq "work"].value`);
    conditions.push({ attribute, value: comparisonValue(value) });
    if (joiner !== undefined && joiner.toLowerCase() !== 'and') {
      throw invalidFilter(joiner.toLowerCase() === 'or' ? 'or is not supported; only and' : `expected and, found ${joiner}`);
    }
    if (joiner !== undefined && i + 4 >= tokens.length) throw invalidFilter('and must be followed by another comparison');
  }
  return conditions;
}
