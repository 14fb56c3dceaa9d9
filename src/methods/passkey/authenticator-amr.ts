import type { AmrValue } from '../../authn/person-token.ts';

/** W3C WebAuthn §6.1 authenticator data: rpIdHash (32 bytes), then the flags byte. */
const FLAGS_OFFSET = 32;
/** BE, backup eligibility (§6.3.3): the credential may be synced off the authenticator. */
const FLAG_BACKUP_ELIGIBLE = 0x08;

/**
 * The RFC 8176 method of a verified assertion. A backup-eligible credential (a synced passkey)
 * has a private key that leaves the authenticator to be copied to other devices, so it is
 * `swk` (a software-secured key); a device-bound one never leaves the authenticator (a security
 * key, a TPM, a secure enclave), so it is `hwk`. The flag is inside the signed authenticator data,
 * unlike `authenticatorAttachment`, which the browser reports unsigned and which says where the
 * authenticator sits, not how the key is kept. Call only after the signature verified.
 */
export function amrOfAssertion(response: unknown): AmrValue {
  const encoded = (response as { response?: { authenticatorData?: unknown } }).response?.authenticatorData;
  if (typeof encoded !== 'string') throw new Error('amrOfAssertion: a verified assertion has authenticatorData');
  const flags = Buffer.from(encoded, 'base64url')[FLAGS_OFFSET];
  if (flags === undefined) throw new Error('amrOfAssertion: authenticatorData is shorter than its flags');
  return flags & FLAG_BACKUP_ELIGIBLE ? 'swk' : 'hwk';
}
