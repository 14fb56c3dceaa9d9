/** The public-key (passkey) credential type: what the credentials routes and the authn core use. */
export {
  type AssertionOptionsInput,
  type AssertionVerification,
  assertionOptions,
  CHALLENGE_TTL_MS,
  type VerifyAssertionInput,
  verifyAssertion,
} from './assertion.ts';
export { parseCoseKey, SUPPORTED_COSE_ALGORITHMS } from './cose-key.ts';
export { ATTESTATION_FORMATS, type PublicKeyParams, publicKeyResponseParamsSchema } from './params.ts';
export {
  type RegistrationOptionsInput,
  type RegistrationVerification,
  registrationOptions,
  type VerifyRegistrationInput,
  verifyRegistration,
} from './registration.ts';
export { readStoredPublicKeyParams } from './stored-params.ts';
export { publicKeyCredentialType } from './type.ts';
