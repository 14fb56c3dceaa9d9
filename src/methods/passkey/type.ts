import type { CredentialType, PreparedCredential } from '../../credentials/credential-type.ts';
import { publicKeyParamsSchema } from './format/params.ts';
import { readStoredPublicKeyParams } from './format/stored-params.ts';

/**
 * WebAuthn public keys (passkeys), spec §2.3 and design §5. Nothing about a public key is secret,
 * so everything is kept in params and `secret` is null.
 */
export const publicKeyCredentialType: CredentialType = {
  type: 'public-key',
  paramsSchema: publicKeyParamsSchema,
  async prepare(params: unknown): Promise<PreparedCredential> {
    // The COSE key is read with @simplewebauthn's CBOR decoder, whose package loads ~270 modules:
    // imported on the first public-key credential rather than at start-up, for memory.
    const { normalisePublicKeyParams } = await import('./format/normalise-params.ts');
    return { params: { ...normalisePublicKeyParams(params) }, secret: null };
  },
  present(stored: PreparedCredential): Record<string, unknown> {
    const params = readStoredPublicKeyParams(stored.params);
    return {
      webauthn_credential_id: params.webauthn_credential_id,
      public_key: params.public_key,
      attestation_type: params.attestation_type,
      authenticator: { aaguid: params.authenticator.aaguid, sign_count: params.authenticator.sign_count, clone_warning: params.authenticator.clone_warning },
    };
  },
};
