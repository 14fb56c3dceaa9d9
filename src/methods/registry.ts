import type { CredentialType } from '../credentials/credential-type.ts';
import { publicKeyCredentialType } from './passkey/type.ts';
import { passwordCredentialType } from './password/type.ts';
import { totpCredentialType } from './totp/type.ts';

/**
 * The credential types the service offers, each from its own folder under src/methods/.
 * The credentials routes accept exactly these `type`s. Tests of the routes themselves offer
 * their own instead, through startService's options.
 */
export const credentialTypes: readonly CredentialType[] = [publicKeyCredentialType, passwordCredentialType, totpCredentialType];
