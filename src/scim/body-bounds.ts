import { ScimError } from './errors.ts';

/**
 * The deepest SCIM body a provider sends is a PatchOp whose value holds an extension's complex
 * attribute (`Operations[].value[urn].manager.value`, 5 levels); 32 leaves room for custom
 * extensions while a body nested 10,000 deep never reaches a recursive walk (a 500 before).
 */
export const MAX_SCIM_DEPTH = 32;
/**
 * Object members across the whole body: a User holds at most 64 KiB of attributes and a PatchOp
 * at most 100 operations, far below this; past it the body is work, not a directory entry.
 */
export const MAX_SCIM_MEMBERS = 5_000;

/**
 * Checks the raw JSON text before it is parsed, in one pass that recurses on nothing: nesting
 * depth and member count (a `:` outside strings). Text that is not JSON is left to the parser,
 * which says so. Throws ScimError invalidSyntax naming the limit.
 */
export function checkScimBodyBounds(text: string): void {
  let depth = 0;
  let members = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // Skip the string, its escapes included.
      for (i++; i < text.length && text.charCodeAt(i) !== 0x22; i++) if (text.charCodeAt(i) === 0x5c) i++;
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > MAX_SCIM_DEPTH) {
        throw new ScimError('invalidSyntax', `body: is nested deeper than ${MAX_SCIM_DEPTH} levels of objects and arrays, the limit of a SCIM body`);
      }
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
    } else if (c === 0x3a && ++members > MAX_SCIM_MEMBERS) {
      throw new ScimError('invalidSyntax', `body: has more than ${MAX_SCIM_MEMBERS} attributes (object members), the limit of a SCIM body`);
    }
  }
}
