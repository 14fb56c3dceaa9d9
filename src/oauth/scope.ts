/**
 * RFC 6749 §3.3: a scope is a list of scope-tokens separated by single spaces, each token
 * %x21 / %x23-5B / %x5D-7E (printable ASCII except space, `"` and `\`). The one home of that
 * grammar: the token endpoint checks with it, the routes' JSON Schemas are built from it.
 */
const SCOPE_TOKEN_CHAR = '[\\x21\\x23-\\x5B\\x5D-\\x7E]';
const SCOPE_TOKEN = new RegExp(`^${SCOPE_TOKEN_CHAR}+$`);

/** JSON Schema pattern of one scope token of 1 to `maxLength` characters. */
export function scopeTokenPattern(maxLength: number): string {
  return `^${SCOPE_TOKEN_CHAR}{1,${maxLength}}$`;
}

/** JSON Schema pattern of a scope parameter: scope tokens separated by single spaces. */
export const SCOPE_LIST_PATTERN = `^${SCOPE_TOKEN_CHAR}+( ${SCOPE_TOKEN_CHAR}+)*$`;

export function isScopeToken(value: string): boolean {
  return SCOPE_TOKEN.test(value);
}

/** The tokens of a scope parameter in order; repeated spaces are tolerated, not tokens. */
export function splitScope(scope: string): string[] {
  return scope.split(' ').filter(Boolean);
}

/** The distinct tokens of a scope parameter, in order of first appearance. */
export function scopeSet(scope: string): Set<string> {
  return new Set(splitScope(scope));
}
