/** The TOTP credential type and what the authentication core needs to use one. */
export { base32Problem, decodeBase32, encodeBase32 } from './base32.ts';
export { type EnrolmentOptions, newEnrolment, type TotpEnrolment } from './enrolment.ts';
export { KEY_URI_FIELD, parseKeyUri, type TotpKey } from './key-uri.ts';
export { matchRecoveryCode, normaliseRecoveryCode, RECOVERY_CODE_ALPHABET, type RecoveryCodeMatch, recoveryCodes } from './recovery-codes.ts';
export { readStoredTotp, type StoredTotp, type TotpParams, type TotpSecret, withoutRecoveryCode } from './stored.ts';
export { totpCredentialType } from './type.ts';
export { timeStep, verifyTotp } from './verify.ts';
