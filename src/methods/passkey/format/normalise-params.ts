import { invalidField } from '../../../errors/api-error.ts';
import { decodeBase64OrBase64Url, decodeBase64Url, toBase64, toBase64Url } from './base64.ts';
import { parseCoseKey, RSA_MAX_MODULUS_BITS, RSA_MIN_MODULUS_BITS } from './cose-key.ts';
import {
  AAGUID_BYTES,
  ATTESTATION_FORMATS,
  type AttestationFormat,
  CREDENTIAL_ID_MAX_BYTES,
  CREDENTIAL_ID_MIN_BYTES,
  PUBLIC_KEY_MAX_CHARACTERS,
  type PublicKeyParams,
  publicKeyParamsSchema,
  SIGN_COUNT_MAX,
} from './params.ts';

/**
 * Checks a create request's params and returns them normalised. The routes validate against the
 * schema first, but this does not rely on that: it makes every check itself, so the type is safe
 * to call from anywhere (an import script, registration) and names the field and rule each time.
 */
export function normalisePublicKeyParams(params: unknown): PublicKeyParams {
  const body = asObject(params, 'body.params');
  refuseUnknownFields(body, Object.keys(publicKeyParamsSchema.properties), 'body.params');
  const authenticator = asObject(body.authenticator, 'body.params.authenticator');
  refuseUnknownFields(authenticator, ['aaguid', 'sign_count', 'clone_warning'], 'body.params.authenticator');
  return {
    webauthn_credential_id: credentialId(body.webauthn_credential_id),
    public_key: publicKey(body.public_key),
    attestation_type: attestationType(body.attestation_type),
    authenticator: {
      aaguid: aaguid(authenticator.aaguid),
      sign_count: signCount(authenticator.sign_count),
      clone_warning: cloneWarning(authenticator.clone_warning),
    },
  };
}

function credentialId(value: unknown): string {
  const field = 'body.params.webauthn_credential_id';
  const text = requiredString(value, field);
  const bytes = decodeBase64Url(text);
  if (bytes === undefined) throw invalidField(field, 'must be base64url without padding, as the browser sends a credential id');
  if (bytes.length < CREDENTIAL_ID_MIN_BYTES || bytes.length > CREDENTIAL_ID_MAX_BYTES)
    throw invalidField(field, `must decode to ${CREDENTIAL_ID_MIN_BYTES} to ${CREDENTIAL_ID_MAX_BYTES} bytes, not ${bytes.length}`);
  return toBase64Url(bytes);
}

function publicKey(value: unknown): string {
  const field = 'body.params.public_key';
  const text = requiredString(value, field);
  if (text.length > PUBLIC_KEY_MAX_CHARACTERS) throw invalidField(field, 'is too long to be an accepted COSE key');
  const bytes = decodeBase64OrBase64Url(text);
  if (bytes === undefined) throw invalidField(field, 'must be base64 or base64url');
  const parsed = parseCoseKey(bytes);
  if (!parsed.ok) {
    const accepted = `EC2 P-256 (ES256), OKP Ed25519 (EdDSA) or RSA of ${RSA_MIN_MODULUS_BITS} to ${RSA_MAX_MODULUS_BITS} bits (RS256)`;
    throw invalidField(field, `must be a COSE public key, ${accepted}: ${parsed.rule}`);
  }
  return toBase64(bytes);
}

function attestationType(value: unknown): AttestationFormat {
  if (value === undefined) return 'none';
  const format = ATTESTATION_FORMATS.find((known) => known === value);
  if (format === undefined) throw invalidField('body.params.attestation_type', `must be one of ${ATTESTATION_FORMATS.join(', ')}`);
  return format;
}

function aaguid(value: unknown): string {
  const field = 'body.params.authenticator.aaguid';
  const text = requiredString(value, field);
  const bytes = text.length <= 24 ? decodeBase64OrBase64Url(text) : undefined;
  if (bytes === undefined || bytes.length !== AAGUID_BYTES) throw invalidField(field, `must be base64 of ${AAGUID_BYTES} bytes (not the UUID text form)`);
  return toBase64(bytes);
}

function signCount(value: unknown): number {
  if (value === undefined) return 0;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > SIGN_COUNT_MAX)
    throw invalidField('body.params.authenticator.sign_count', `must be an integer from 0 to ${SIGN_COUNT_MAX}`);
  return value;
}

function cloneWarning(value: unknown): boolean {
  if (value === undefined) return false;
  if (typeof value !== 'boolean') throw invalidField('body.params.authenticator.clone_warning', 'must be a boolean');
  return value;
}

function requiredString(value: unknown, field: string): string {
  if (value === undefined) throw invalidField(field, 'is required');
  if (typeof value !== 'string') throw invalidField(field, 'must be a string');
  if (value.length === 0) throw invalidField(field, 'must not be empty');
  return value;
}

function asObject(value: unknown, field: string): Record<string, unknown> {
  if (value === undefined) throw invalidField(field, 'is required');
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw invalidField(field, 'must be an object');
  return value as Record<string, unknown>;
}

function refuseUnknownFields(object: Record<string, unknown>, known: string[], at: string): void {
  const unknown = Object.keys(object).find((key) => !known.includes(key));
  if (unknown !== undefined) throw invalidField(`${at}.${unknown}`, 'is not a known field');
}
