import { invalidField } from '../../errors/api-error.ts';
import { decodeBcryptBase64 } from './bcrypt-base64.ts';
import { type BcryptHash, type BcryptVersion, PASSWORD_HASH_FIELD } from './password-hash.ts';

export const BCRYPT_VERSIONS: readonly BcryptVersion[] = ['2', '2a', '2b', '2x', '2y'];
/** The range every bcrypt implementation accepts (crypt_blowfish refuses 3 and 32). */
export const BCRYPT_COST_RANGE = { min: 4, max: 31 } as const;

const SHAPE = '$2b$<cost, two digits>$<22 characters of salt><31 characters of hash>';
const refuse = (rule: string) => invalidField(PASSWORD_HASH_FIELD, rule);

/**
 * A bcrypt hash in its plain (modular crypt) format, `$2b$12$<salt><hash>`. `version` is the
 * part after the first `$`, already checked to be `[a-z0-9]` and to start with 2.
 */
export function parseBcrypt(version: string, parts: string[]): BcryptHash {
  // Named only when as short as a real version: a longer one may be a plain-text password that starts with $2.
  if (!isBcryptVersion(version)) throw refuse(`bcrypt version ${version.length <= 2 ? `${version} ` : ''}is not one of ${BCRYPT_VERSIONS.join(', ')}`);
  if (parts.length < 4) throw refuse(`is a truncated bcrypt hash: expected ${SHAPE}`);
  if (parts.length > 4) throw refuse(`has more $-separated parts than a bcrypt hash: expected ${SHAPE}`);
  const [, , costText, body] = parts as [string, string, string, string];

  if (!/^[0-9]{2}$/.test(costText)) throw refuse('bcrypt cost must be two digits, 04–31');
  const cost = Number(costText);
  if (cost < BCRYPT_COST_RANGE.min || cost > BCRYPT_COST_RANGE.max) throw refuse(`bcrypt cost must be between 04 and 31, not ${costText}`);

  if (body.length !== 53) throw refuse(`bcrypt salt and hash must be 53 characters (22 + 31), not ${body.length}`);
  const salt = decodeBcryptBase64(body.slice(0, 22), 16);
  if (!salt) throw refuse("bcrypt salt is not bcrypt base64 (./A-Za-z0-9, last character's unused bits zero)");
  const hash = decodeBcryptBase64(body.slice(22), 23);
  if (!hash) throw refuse("bcrypt hash is not bcrypt base64 (./A-Za-z0-9, last character's unused bits zero)");

  return { function: 'bcrypt', version, cost, salt, hash };
}

function isBcryptVersion(version: string): version is BcryptVersion {
  return (BCRYPT_VERSIONS as readonly string[]).includes(version);
}
