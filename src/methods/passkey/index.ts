/** The public-key (passkey) credential type: what the credentials routes and the authn core use. */

export { parseCoseKey, SUPPORTED_COSE_ALGORITHMS } from './format/cose-key.ts';
export { ATTESTATION_FORMATS, type PublicKeyParams, publicKeyResponseParamsSchema } from './format/params.ts';
export { readStoredPublicKeyParams } from './format/stored-params.ts';
export { publicKeyCredentialType } from './type.ts';
export {
  type AssertionOptionsInput,
  type AssertionVerification,
  assertionOptions,
  CHALLENGE_TTL_MS,
  type VerifyAssertionInput,
  verifyAssertion,
} from './verify-assertion.ts';
export {
  type RegistrationOptionsInput,
  type RegistrationVerification,
  registrationOptions,
  type VerifyRegistrationInput,
  verifyRegistration,
} from './verify-registration.ts';
