import { ScimError } from './scim-error.ts';

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
      if (depth < 0 || depth > 1) throw invalidFilter('brackets do not match');
      current += c;
    } else if (/\s/.test(c) && depth === 0) {
      if (current) tokens.push(current);
      current = '';
    } else if ((c === '(' || c === ')') && depth === 0) {
      throw invalidFilter('grouping with ( ) is not supported; use attribute eq "value" joined by and');
    } else {
      current += c;
    }
  }
  if (quoted) throw invalidFilter('a quoted string is not closed');
  if (depth !== 0) throw invalidFilter('brackets do not match');
  if (current) tokens.push(current);
  return tokens;
}

/** A comparison value: a JSON string, or Entra's unquoted form (`externalId eq jyoung`, fixtures E10). */
export function comparisonValue(token: string): string {
  const value = decodedValue(token);
  // No stored value holds U+0000 (PostgreSQL cannot): a filter asking for one is refused, not sent.
  if (value.includes('\u0000')) throw invalidFilter('a value must not contain the NUL character (U+0000)');
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
    throw invalidFilter(`${token} is not a valid quoted string`);
  }
  if (/^[^\s"()[\]]+$/.test(token)) return token;
  throw invalidFilter(`${token} is not a value`);
}

/** RFC 7644's invalidFilter, for a filter or a PATCH path's value filter this server cannot read. */
export function invalidFilter(rule: string): ScimError {
  return new ScimError('invalidFilter', `filter: ${rule}`);
}
