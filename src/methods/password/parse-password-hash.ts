import { invalidField } from '../../errors/api-error.ts';
import { parseArgon2 } from './parse-argon2.ts';
import { parseBcrypt } from './parse-bcrypt.ts';
import { parsePbkdf2 } from './parse-pbkdf2.ts';
import { ACCEPTED_FUNCTIONS, PASSWORD_HASH_FIELD, type PasswordHash } from './password-hash.ts';

/** Hash schemes people try to import, named so the refusal says what was recognised. */
const UNLISTED_SCHEMES: Record<string, string> = {
  '1': 'md5-crypt ($1$)',
  apr1: "Apache's md5 ($apr1$)",
  md5: 'md5',
  '3': 'NT hash ($3$)',
  '5': 'sha256-crypt ($5$)',
  '6': 'sha512-crypt ($6$)',
  '7': 'scrypt ($7$)',
  scrypt: 'scrypt',
  y: 'yescrypt ($y$)',
  gy: 'gost-yescrypt ($gy$)',
  argon2d: 'argon2d',
  sha1: 'sha1-crypt ($sha1$)',
};

/** The function version part (`2b` of bcrypt, `sha256` of pbkdf2): design §5 allows only these. */
const VERSION_PART = /^[a-z0-9]+$/;

const refuse = (rule: string) => invalidField(PASSWORD_HASH_FIELD, rule);

/**
 * Reads an imported password hash in one of design §5's formats, or throws a 400 naming
 * `body.params.password_hash` and the rule broken. Refusals never quote the hash: an import
 * of plain text would otherwise echo a password.
 */
export function parsePasswordHash(text: string): PasswordHash {
  if (!text.startsWith('$')) {
    throw refuse(`is not a hash in an accepted format (plain text and formats without a leading $ are refused); ${ACCEPTED_FUNCTIONS}`);
  }
  const parts = text.split('$');
  const identifier = parts[1] ?? '';

  if (identifier === 'argon2i' || identifier === 'argon2id') return parseArgon2(identifier, parts);
  if (identifier.startsWith('2')) return parseBcrypt(versionPart(identifier), parts);
  if (identifier.startsWith('pbkdf2-')) return parsePbkdf2(versionPart(identifier.slice('pbkdf2-'.length)), parts);
  if (identifier === 'pbkdf2') throw refuse(`pbkdf2 must name its digest, $pbkdf2-<sha1|sha256|sha512>$; ${ACCEPTED_FUNCTIONS}`);

  const known = Object.hasOwn(UNLISTED_SCHEMES, identifier) ? UNLISTED_SCHEMES[identifier] : undefined;
  throw refuse(`${known ? `${known} is not an accepted function` : 'is not a hash of an accepted function'}; ${ACCEPTED_FUNCTIONS}`);
}

function versionPart(version: string): string {
  if (!VERSION_PART.test(version)) throw refuse(`the function version part may contain only [a-z0-9]; ${ACCEPTED_FUNCTIONS}`);
  return version;
}
