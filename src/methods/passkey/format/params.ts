import { type Static, Type } from 'typebox';

/**
 * The public-key type's params (spec §2.3): the create request's schema, and the normalised
 * shape that is stored and shown back.
 */

/**
 * The attestation statement formats of the IANA "WebAuthn Attestation Statement Format
 * Identifiers" registry (RFC 8809; W3C WebAuthn §8). Spec §2.3 names the field attestation_type
 * and defaults it to "none"; exporters built on go-webauthn (whose Credential.AttestationType is
 * this format) and registrations made here (verifyRegistration records the format) both yield one
 * of these. Anything else is refused so that a typo or a conveyance preference ("direct") is not
 * stored as if it described how the key was attested.
 */
export const ATTESTATION_FORMATS = ['none', 'packed', 'tpm', 'android-key', 'android-safetynet', 'fido-u2f', 'apple', 'compound'] as const;
export type AttestationFormat = (typeof ATTESTATION_FORMATS)[number];

/** W3C WebAuthn §6.1: authenticators make ids of at least 16 bytes; no id exceeds 1023 bytes. */
export const CREDENTIAL_ID_MIN_BYTES = 16;
export const CREDENTIAL_ID_MAX_BYTES = 1023;
export const AAGUID_BYTES = 16;
/** authData's signCount is an unsigned 32-bit integer (W3C WebAuthn §6.1). */
export const SIGN_COUNT_MAX = 2 ** 32 - 1;

/** Room for the largest key accepted (an 8192-bit RSA key is about 1,050 bytes of COSE). */
export const MAX_COSE_KEY_BYTES = 2048;

/** The longest public_key text: the largest COSE key accepted, in padded base64. */
export const PUBLIC_KEY_MAX_CHARACTERS = Math.ceil(MAX_COSE_KEY_BYTES / 3) * 4;

export const publicKeyParamsSchema = Type.Object(
  {
    webauthn_credential_id: Type.String({
      minLength: Math.ceil((CREDENTIAL_ID_MIN_BYTES * 4) / 3),
      maxLength: Math.ceil((CREDENTIAL_ID_MAX_BYTES * 4) / 3),
      pattern: '^[A-Za-z0-9_-]+$',
      description: `The credential id as the browser sends it: base64url without padding, ${CREDENTIAL_ID_MIN_BYTES} to ${CREDENTIAL_ID_MAX_BYTES} bytes`,
    }),
    public_key: Type.String({
      minLength: 1,
      maxLength: PUBLIC_KEY_MAX_CHARACTERS,
      pattern: '^[A-Za-z0-9+/_-]+={0,2}$',
      description: 'The COSE public key (EC2 P-256 ES256, OKP Ed25519 EdDSA, or RSA RS256 of 2048 to 8192 bits), base64 or base64url',
    }),
    attestation_type: Type.Optional(
      Type.Union(
        ATTESTATION_FORMATS.map((format) => Type.Literal(format)),
        { default: 'none', description: 'The attestation statement format the credential was registered with' },
      ),
    ),
    authenticator: Type.Object(
      {
        aaguid: Type.String({
          minLength: 22,
          maxLength: 24,
          pattern: '^[A-Za-z0-9+/_-]{22}(==)?$',
          description: "The authenticator model's AAGUID: 16 bytes, base64 (all zero when the authenticator does not say)",
        }),
        sign_count: Type.Optional(Type.Integer({ minimum: 0, maximum: SIGN_COUNT_MAX, default: 0, description: 'The signature counter last seen' })),
        clone_warning: Type.Optional(Type.Boolean({ default: false, description: 'Whether the counter was once seen not to increase' })),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);

/** What is stored and shown back: every field present, keys and ids in one canonical encoding. */
export interface PublicKeyParams {
  /** base64url without padding, as browsers send `id`. */
  webauthn_credential_id: string;
  /** Standard base64 (spec §2.3 response: "string, base64") of the COSE key's exact bytes. */
  public_key: string;
  attestation_type: AttestationFormat;
  authenticator: {
    /** Standard base64 with padding of the 16-byte AAGUID. */
    aaguid: string;
    sign_count: number;
    clone_warning: boolean;
  };
}

export type PublicKeyCreateParams = Static<typeof publicKeyParamsSchema>;

/** The response params of spec §2.3, for the OpenAPI document's oneOf. */
export const publicKeyResponseParamsSchema = Type.Object({
  webauthn_credential_id: Type.String(),
  public_key: Type.String({ description: 'COSE public key, base64' }),
  attestation_type: Type.String(),
  authenticator: Type.Object({ aaguid: Type.String({ description: 'base64' }), sign_count: Type.Integer(), clone_warning: Type.Boolean() }),
});
