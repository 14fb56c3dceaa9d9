import type { Credential } from '../store/credentials/store.ts';
import type { CredentialType } from './credential-type.ts';

/** Spec §2.3's credential. A type no longer enabled shows its stored params; never the secret. */
export function presentCredential(type: CredentialType | undefined, credential: Credential) {
  const params = type ? type.present({ params: credential.params, secret: credential.secret }) : credential.params;
  return {
    id: credential.id,
    last_used: credential.lastUsed === null ? null : new Date(credential.lastUsed).toISOString(),
    type: credential.type,
    params,
    ...(credential.label === null ? {} : { label: credential.label }),
  };
}
