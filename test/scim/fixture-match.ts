/**
 * The fixtures' body_subset rules (test/scim/fixtures/README.md § Matching body_subset):
 * objects match member by member, a subset array's elements each match a distinct element
 * of the response array (an empty one requires an empty array), scalars strictly; the
 * placeholders {id}, {id:name}, {datetime} and {string} as the README defines them.
 */
export function mismatch(expected: unknown, actual: unknown, ids: Record<string, string>, at = 'body'): string | undefined {
  if (typeof expected === 'string') {
    if (expected === '{datetime}') {
      return typeof actual === 'string' && /^\d{4}-\d\d-\d\dT/.test(actual) && !Number.isNaN(Date.parse(actual))
        ? undefined
        : `${at}: expected a date-time, got ${JSON.stringify(actual)}`;
    }
    if (expected === '{string}') return typeof actual === 'string' && actual.length > 0 ? undefined : `${at}: expected a non-empty string`;
    const wanted = substitute(expected, ids);
    return actual === wanted ? undefined : `${at}: expected ${JSON.stringify(wanted)}, got ${JSON.stringify(actual)}`;
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return `${at}: expected an array, got ${JSON.stringify(actual)}`;
    if (expected.length === 0) return actual.length === 0 ? undefined : `${at}: expected an empty array, got ${actual.length} items`;
    return assign(expected, actual, 0, new Set(), ids)
      ? undefined
      : `${at}: no distinct elements of ${JSON.stringify(actual)} match ${JSON.stringify(expected)}`;
  }
  if (expected !== null && typeof expected === 'object') {
    if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) return `${at}: expected an object, got ${JSON.stringify(actual)}`;
    for (const [key, value] of Object.entries(expected)) {
      if (!(key in actual)) return `${at}.${key}: missing`;
      const problem = mismatch(value, (actual as Record<string, unknown>)[key], ids, `${at}.${key}`);
      if (problem) return problem;
    }
    return undefined;
  }
  return actual === expected ? undefined : `${at}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`;
}

function assign(expected: unknown[], actual: unknown[], index: number, used: Set<number>, ids: Record<string, string>): boolean {
  if (index === expected.length) return true;
  for (let i = 0; i < actual.length; i++) {
    if (used.has(i) || mismatch(expected[index], actual[i], ids) !== undefined) continue;
    used.add(i);
    if (assign(expected, actual, index + 1, used, ids)) return true;
    used.delete(i);
  }
  return false;
}

/** Replaces {id} and {id:name} with the ids bound so far. */
export function substitute(text: string, ids: Record<string, string>): string {
  return text.replace(/\{id(?::(\w+))?\}/g, (whole, name: string | undefined) => ids[name ?? ''] ?? whole);
}

export function substituteDeep(value: unknown, ids: Record<string, string>): unknown {
  if (typeof value === 'string') return substitute(value, ids);
  if (Array.isArray(value)) return value.map((v) => substituteDeep(v, ids));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, substituteDeep(v, ids)]));
  return value;
}
