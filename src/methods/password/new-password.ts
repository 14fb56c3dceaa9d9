import { MAX_PASSWORD_LENGTH } from './login-schemas.ts';

/**
 * The rules a password chosen in Tessera is held to (an invitation's, design §9), after NIST SP
 * 800-63B §3.1.1.2: a length, no composition rules, and no value a guesser tries first. Imported
 * hashes are not held to them: their passwords are unknown here.
 */
export const NEW_PASSWORD_MIN_LENGTH = 12;

/**
 * Common passwords of twelve characters or more (the shorter ones fail on length), from the
 * breach corpora's most frequent entries: the list a guesser starts with.
 */
const COMMON = new Set([
  '123456789012',
  '1234567890123',
  '12345678901234',
  '123456789012345',
  '1234567890qwerty',
  '1q2w3e4r5t6y',
  '1q2w3e4r5t6y7u8i',
  'qwertyuiopasdfgh',
  'qwertyuiop[]',
  'qwerty123456',
  'qwertyuiop123',
  'password1234',
  'password12345',
  'password123456',
  'passwordpassword',
  'iloveyou1234',
  'abc123456789',
  'administrator',
  'administrator1',
  'changeme1234',
  'letmein12345',
  'welcome12345',
  'welcome123456',
  'trustno1trustno1',
  'football1234',
  'baseball1234',
  'monkey123456',
  'sunshine1234',
  'princess1234',
  'superman1234',
  'starwars1234',
  'correcthorsebatterystaple',
]);

export interface PasswordContext {
  /** The organisation's name: a password made of it is the first a guesser of its persons tries. */
  organizationName: string;
  /** The person's handles' values (an email address counts by its local part too). */
  handles: readonly string[];
}

/** One character repeated, or a run up or down by one (abcdefghijkl, 987654321098 wraps once). */
function isPattern(password: string): boolean {
  const codes = Array.from(password, (char) => char.codePointAt(0)!);
  const steps = new Set(codes.slice(1).map((code, i) => code - codes[i]!));
  if (steps.size === 1 && [0, 1, -1].includes([...steps][0]!)) return true;
  return '01234567890123456789'.includes(password) || '98765432109876543210'.includes(password);
}

/** Words of the context (at least four characters), lowercased. */
function contextWords(context: PasswordContext): string[] {
  const words = [context.organizationName, ...context.handles.flatMap((handle) => [handle, handle.split('@')[0] ?? ''])];
  return words.map((word) => word.toLowerCase()).filter((word) => word.length >= 4);
}

/** Why `password` may not be chosen, in words for the person choosing it; undefined when it may. */
export function newPasswordProblem(password: string, context: PasswordContext): string | undefined {
  const length = Array.from(password).length;
  if (length < NEW_PASSWORD_MIN_LENGTH) return `must be at least ${NEW_PASSWORD_MIN_LENGTH} characters (it has ${length}); a few words make a good one`;
  if (Buffer.byteLength(password) > MAX_PASSWORD_LENGTH) return `must be at most ${MAX_PASSWORD_LENGTH} bytes`;
  if (/\p{Cc}/u.test(password)) return 'must not contain control characters';
  const lower = password.toLowerCase();
  if (COMMON.has(lower) || isPattern(lower)) return 'is one of the passwords guessed first (a common one, or a repeated or sequential run); choose another';
  let rest = lower;
  for (const word of contextWords(context)) rest = rest.replaceAll(word, '');
  if (Array.from(rest).length < 8) return "must not be mostly the organisation's name or your own handle; add words of your own";
  return undefined;
}
