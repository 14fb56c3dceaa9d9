import { unicodeScripts } from './unicode-scripts.ts';

/**
 * Mixed-script detection after Unicode Technical Standard #39 (Security Mechanisms), §5.2,
 * restriction level "Highly Restrictive": the defence against look-alike identifiers such as
 * "pаypal" with a Cyrillic "а" in a Latin word. Scripts come from the Script_Extensions
 * property, so a character used by several scripts (a Japanese prolonged sound mark, an
 * Arabic-Indic digit) counts for each of them.
 */

/** Characters of no particular script (digits, punctuation, combining marks): they fit any. */
const COMMON_OR_INHERITED = /^[\p{scx=Common}\p{scx=Inherited}]$/u;
const ASCII_LETTER = /^[A-Za-z]$/;

/**
 * UTS #39 §5.1 "augmented script sets": Han is also written inside Japanese, Korean and
 * Han-with-Bopomofo text, kana are Japanese, Hangul is Korean, Bopomofo goes with Han.
 */
const AUGMENTED: Readonly<Record<string, readonly string[]>> = {
  Han: ['Han', 'Han_with_Bopomofo', 'Japanese', 'Korean'],
  Hiragana: ['Hiragana', 'Japanese'],
  Katakana: ['Katakana', 'Japanese'],
  Hangul: ['Hangul', 'Korean'],
  Bopomofo: ['Bopomofo', 'Han_with_Bopomofo'],
};
/** The scripts behind each augmented name, to test a character against it. */
const WRITING_SYSTEM: Readonly<Record<string, readonly string[]>> = {
  Japanese: ['Han', 'Hiragana', 'Katakana'],
  Korean: ['Han', 'Hangul'],
  Han_with_Bopomofo: ['Han', 'Bopomofo'],
};

/** The mixtures "Highly Restrictive" allows beyond a single script: Latin with a CJK system. */
const ALLOWED_COVERS: readonly (readonly string[])[] = [
  ['Latin', 'Han', 'Hiragana', 'Katakana'],
  ['Latin', 'Han', 'Bopomofo'],
  ['Latin', 'Han', 'Hangul'],
];

const patterns = new Map<string, RegExp>();
const ALL_ASCII = /^\p{ASCII}*$/u;

function inScript(char: string, script: string): boolean {
  const parts = WRITING_SYSTEM[script];
  if (parts) return parts.some((part) => inScript(char, part));
  if (char < '\x80') return script === 'Latin' && ASCII_LETTER.test(char);
  let pattern = patterns.get(script);
  if (!pattern) patterns.set(script, (pattern = new RegExp(`^\\p{scx=${script}}$`, 'u')));
  return pattern.test(char);
}

/** The character's Script_Extensions; 'Unknown' for an unassigned or private-use code point. */
export function scriptsOf(char: string): string[] {
  if (COMMON_OR_INHERITED.test(char)) return ['Common'];
  const scripts = unicodeScripts.filter((script) => inScript(char, script));
  return scripts.length > 0 ? scripts : ['Unknown'];
}

function augmented(scripts: readonly string[]): string[] {
  return [...new Set(scripts.flatMap((script) => AUGMENTED[script] ?? [script]))];
}

/**
 * Undefined when the label passes "Highly Restrictive": all its characters share one script
 * (Common and Inherited ones fit any), or they all fall within Latin + Han + Hiragana +
 * Katakana, Latin + Han + Bopomofo, or Latin + Han + Hangul. Otherwise the scripts it mixes,
 * sorted, for the message. Each character is only tested against the scripts still possible,
 * so an acceptable label costs a few regular-expression tests per character.
 */
export function mixedScripts(label: string): string[] | undefined {
  // ASCII holds Latin letters and Common characters only: one script, nothing to look up.
  if (ALL_ASCII.test(label)) return undefined;
  let shared: string[] | undefined;
  let covers = ALLOWED_COVERS;
  const seen: string[] = [];
  for (const char of label) {
    if (char < '\x80' ? !ASCII_LETTER.test(char) : COMMON_OR_INHERITED.test(char)) continue;
    seen.push(char);
    shared = shared === undefined ? augmented(scriptsOf(char)) : shared.filter((script) => inScript(char, script));
    covers = covers.filter((cover) => cover.some((script) => inScript(char, script)));
    if (shared.length === 0 && covers.length === 0) {
      return [...new Set(seen.flatMap(scriptsOf))].sort();
    }
  }
  return undefined;
}
