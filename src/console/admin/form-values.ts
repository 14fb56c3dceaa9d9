/** Form text as the API's JSON values. */

/**
 * A number typed in a form, as a number when it reads as one; otherwise the text itself, so
 * the API's schema refuses it in its own words (`must be an integer`).
 */
export function formNumber(text: string): number | string {
  const trimmed = text.trim();
  return /^[+-]?\d+(\.\d+)?$/.test(trimmed) ? Number(trimmed) : trimmed;
}

/** A textarea's non-empty lines, trimmed. */
export function formLines(text: string): string[] {
  return text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '');
}
