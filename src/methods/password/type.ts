import { Type } from 'typebox';
import type { CredentialType, PreparedCredential } from '../../credentials/credential-type.ts';
import { parseImportedPasswordHash } from './cost-ceilings.ts';

/** Longer than any accepted format can be (a pbkdf2 with 64-byte salt and key is under 200). */
export const PASSWORD_HASH_MAX_LENGTH = 512;

export const passwordParamsSchema = Type.Object(
  {
    password_hash: Type.String({
      minLength: 1,
      maxLength: PASSWORD_HASH_MAX_LENGTH,
      description:
        'An imported hash: argon2i/argon2id PHC string, bcrypt ($2$, $2a$, $2b$, $2x$, $2y$), or $pbkdf2-<sha1|sha256|sha512>$i=<iterations>,l=<key length>$<salt>$<hash>',
    }),
  },
  { additionalProperties: false },
);

/**
 * Imported password hashes (spec §2.3, design §5). The hash is kept twice: in `secret`, what
 * logins verify (and what a re-hash replaces), and in `params`, the text as imported or last
 * re-hashed, which the response shows; the routes write both together.
 */
export const passwordCredentialType: CredentialType = {
  type: 'password',
  onePerPerson: true,
  paramsSchema: passwordParamsSchema,
  async prepare(params: unknown): Promise<PreparedCredential> {
    const { password_hash } = params as { password_hash: string };
    parseImportedPasswordHash(password_hash);
    return { params: { password_hash }, secret: { password_hash } };
  },
  present(stored: PreparedCredential): Record<string, unknown> {
    return { password_hash: stored.params.password_hash };
  },
};

/** The hash a login verifies, from what `prepare` returned and the store kept. */
export function storedPasswordHash(stored: PreparedCredential): string {
  const hash = stored.secret?.password_hash;
  if (typeof hash !== 'string') throw new TypeError('a password credential without a password_hash in its secret');
  return hash;
}
