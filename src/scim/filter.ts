import type { IdentityCondition } from '../store/identities/store.ts';
import { ScimError } from './errors.ts';

const MAX_FILTER_LENGTH = 1024;

/**
 * Splits a filter into whitespace-separated tokens, keeping quoted strings (with JSON escapes)
 * and bracketed value filters (`emails[type eq "work"].value`) whole.
 */
export function tokenize(filter: string): string[] {
  const tokens: string[] = [];
  let current = '';
  let quoted = false;
  let depth = 0;
  for (let i = 0; i < filter.length; i++) {
    const c = filter[i]!;
    if (quoted) {
      current += c;
      if (c === '\\') current += filter[++i] ?? '';
      else if (c === '"') quoted = false;
    } else if (c === '"') {
      quoted = true;
      current += c;
    } else if (c === '[' || c === ']') {
      depth += c === '[' ? 1 : -1;
      if (depth < 0 || depth > 1) throw invalid('brackets do not match');
      current += c;
    } else if (/\s/.test(c) && depth === 0) {
      if (current) tokens.push(current);
      current = '';
    } else if ((c === '(' || c === ')') && depth === 0) {
      throw invalid('grouping with ( ) is not supported; use attribute eq "value" joined by and');
    } else {
      current += c;
    }
  }
  if (quoted) throw invalid('a quoted string is not closed');
  if (depth !== 0) throw invalid('brackets do not match');
  if (current) tokens.push(current);
  return tokens;
}

/** A comparison value: a JSON string, or Entra's unquoted form (`externalId eq jyoung`, fixtures E10). */
export function comparisonValue(token: string): string {
  const value = decodedValue(token);
  // No stored value holds U+0000 (PostgreSQL cannot): a filter asking for one is refused, not sent.
  if (value.includes('\u0000')) throw invalid('a value must not contain the NUL character (U+0000)');
  return value;
}

function decodedValue(token: string): string {
  if (token.startsWith('"')) {
    try {
      const value: unknown = JSON.parse(token);
      if (typeof value === 'string') return value;
    } catch {
      // Falls through to the refusal below.
    }
    throw invalid(`${token} is not a valid quoted string`);
  }
  if (/^[^\s"()[\]]+$/.test(token)) return token;
  throw invalid(`${token} is not a value`);
}

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
  if (filter.trim() === '') throw invalid('is empty');
  if (filter.length > MAX_FILTER_LENGTH) throw invalid(`is longer than ${MAX_FILTER_LENGTH} characters`);
  const tokens = tokenize(filter);
  const conditions: IdentityCondition[] = [];
  for (let i = 0; i < tokens.length; i += 4) {
    const [path, op, value, joiner] = tokens.slice(i, i + 4);
    if (path?.toLowerCase() === 'not') throw invalid('not( ) is not supported');
    if (!op || value === undefined) {
      if (op?.toLowerCase() === 'pr') throw invalid('the pr operator is not supported; only eq');
      throw invalid('expected attribute eq "value"');
    }
    if (op.toLowerCase() !== 'eq') throw invalid(`the ${op} operator is not supported; only eq (and and)`);
    const attribute = attributeOf(path!);
    if (!attribute) throw invalid(`filtering on ${path} is not supported; use userName, externalId, id or emails[type eq "work"].value`);
    conditions.push({ attribute, value: comparisonValue(value) });
    if (joiner !== undefined && joiner.toLowerCase() !== 'and') {
      throw invalid(joiner.toLowerCase() === 'or' ? 'or is not supported; only and' : `expected and, found ${joiner}`);
    }
    if (joiner !== undefined && i + 4 >= tokens.length) throw invalid('and must be followed by another comparison');
  }
  return conditions;
}

function invalid(rule: string): ScimError {
  return new ScimError('invalidFilter', `filter: ${rule}`);
}
