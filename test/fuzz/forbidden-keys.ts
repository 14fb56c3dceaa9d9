/**
 * Whether a JSON value holds `__proto__`, or `constructor` with `prototype`, anywhere: keys the
 * service's JSON parser refuses before any schema is read (400 MALFORMED_JSON, docs/errors.md).
 * Arbitrary JSON draws them now and then, so a property expecting a field's refusal must know.
 */
export function holdsForbiddenKey(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  return Object.entries(value).some(
    ([key, member]) =>
      key === '__proto__' ||
      (key === 'constructor' && typeof member === 'object' && member !== null && Object.hasOwn(member, 'prototype')) ||
      holdsForbiddenKey(member),
  );
}
