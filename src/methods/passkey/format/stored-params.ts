import { ATTESTATION_FORMATS, type PublicKeyParams } from './params.ts';

/**
 * Reads back what prepare() stored. The credentials store keeps params as an opaque record, so
 * this narrows it again; a record that does not have the shape was not made by this type (or was
 * altered in the database), which is a fault of the service and not of the caller.
 */
export function readStoredPublicKeyParams(params: Record<string, unknown>): PublicKeyParams {
  const authenticator = params.authenticator as Record<string, unknown> | null | undefined;
  const wellFormed =
    typeof params.webauthn_credential_id === 'string' &&
    typeof params.public_key === 'string' &&
    ATTESTATION_FORMATS.some((format) => format === params.attestation_type) &&
    typeof authenticator === 'object' &&
    authenticator !== null &&
    typeof authenticator.aaguid === 'string' &&
    Number.isInteger(authenticator.sign_count) &&
    typeof authenticator.clone_warning === 'boolean';
  if (!wellFormed) throw new Error('A stored public-key credential does not have the shape its type stores');
  return params as unknown as PublicKeyParams;
}
