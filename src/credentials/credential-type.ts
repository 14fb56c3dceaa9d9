import type { TSchema } from 'typebox';

/** Spec §2.3's three credential types. */
export const CREDENTIAL_TYPES = ['public-key', 'password', 'totp'] as const;
export type CredentialTypeName = (typeof CREDENTIAL_TYPES)[number];

/**
 * What a credential type keeps. `params` is what the API shows back (spec §2.3's response
 * params, or what they are computed from); `secret` never leaves the service: a TOTP secret
 * sealed, recovery codes hashed, a password hash as verified. The credentials module stores
 * both and knows neither's shape.
 */
export interface PreparedCredential {
  params: Record<string, unknown>;
  secret: Record<string, unknown> | null;
}

/** What a type needs from the service to prepare a credential, without importing the service. */
export interface CredentialTypeContext {
  /** Seals a secret at rest (AES-256-GCM under TESSERA_SECRET, crypto/secret-box.ts). */
  seal(plaintext: string): string;
  /** Opens what `seal` made; throws when it was sealed under another secret or altered. */
  open(sealed: string): string;
  /** A keyed hash (HMAC-SHA-256 under a key derived from TESSERA_SECRET) for single-use codes. */
  hashCode(code: string): string;
}

/**
 * One credential type: the shape of its create request, the checks a schema cannot make, and
 * its response. Each type lives in its own folder under src/methods/ and exports one of
 * these; the credentials routes choose by `type` and never look inside `params` themselves.
 */
export interface CredentialType {
  type: CredentialTypeName;
  /** JSON Schema (TypeBox) of the create request's `params`: validation and the OpenAPI oneOf. */
  paramsSchema: TSchema;
  /**
   * Checks what the schema cannot (hash formats and cost ceilings, key URI parts, COSE keys)
   * and returns what to store. Bad input throws invalidField('body.params.<field>', rule)
   * (src/errors/api-error.ts), naming the field and the rule; nothing is stored then.
   */
  prepare(params: unknown, context: CredentialTypeContext): Promise<PreparedCredential>;
  /** The response `params` of spec §2.3, from what was stored. */
  present(stored: PreparedCredential): Record<string, unknown>;
  /**
   * A person holds at most one of this type: a second is 409 until the first is deleted. A
   * password is: a login checks one hash within the failure time (several would each cost one,
   * and a person's failures would take longer than a stranger's).
   */
  onePerPerson?: boolean;
}
