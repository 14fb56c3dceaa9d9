/**
 * Control (Cc) and format (Cf) characters: invisible (zero-width space, joiners, word joiner,
 * byte-order mark, soft hyphen) or they reorder what is displayed (bidirectional marks,
 * embeddings, overrides and isolates), so two different values could look identical.
 */
const CONTROL_OR_FORMAT = /[\p{Cc}\p{Cf}]/u;
/**
 * Unassigned (Cn) and private-use (Co) code points have no agreed appearance, and the NFC form
 * of an unassigned one may change once Unicode assigns it, which would break comparison of
 * stored values; an unpaired surrogate (Cs) is not a character at all and cannot be stored as
 * UTF-8 without being replaced.
 */
const NOT_A_CHARACTER = /[\p{Cn}\p{Co}\p{Cs}]/u;

/** The rule the value breaks by the characters it contains, or undefined. */
export function unsafeCharacterProblem(value: string): string | undefined {
  const control = CONTROL_OR_FORMAT.exec(value);
  if (control) return `must not contain control or format characters such as zero-width or bidirectional marks (found ${codePoint(control[0])})`;
  const other = NOT_A_CHARACTER.exec(value);
  if (other) return `must contain only assigned Unicode characters, no private-use code points or unpaired surrogates (found ${codePoint(other[0])})`;
  return undefined;
}

function codePoint(char: string): string {
  return `U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
}
