import type { PreparedCredential } from '../../credentials/credential-type.ts';
import { TOTP_ALGORITHMS, TOTP_DIGITS, type TotpAlgorithm, type TotpDigits } from './limits.ts';

/** What a TOTP credential keeps in `params`: nothing secret, everything verification needs besides the key. */
export interface TotpParams {
  /** Codes originally issued (spec §2.3's recovery_codes_total). */
  recovery_codes_total: number;
  algorithm: TotpAlgorithm;
  digits: TotpDigits;
  period: number;
}

/** What a TOTP credential keeps in `secret`: never in the clear. */
export interface TotpSecret {
  /** The key's Base32, sealed by CredentialTypeContext.seal. */
  sealed_key: string;
  /** CredentialTypeContext.hashCode of each unused recovery code, normalised (recovery-codes.ts). */
  recovery_code_hashes: string[];
}

export interface StoredTotp {
  params: TotpParams;
  secret: TotpSecret;
}

/**
 * The stored credential, typed; throws a plain Error (a 500, not a 400) when it is not what
 * totpCredentialType.prepare made, since then the store, not the caller, is wrong.
 */
export function readStoredTotp(stored: PreparedCredential): StoredTotp {
  const { params, secret } = stored;
  const algorithm = TOTP_ALGORITHMS.find((known) => known === params.algorithm);
  const digits = TOTP_DIGITS.find((known) => known === params.digits);
  const { period, recovery_codes_total } = params;
  const sealedKey = secret?.sealed_key;
  const hashes = secret?.recovery_code_hashes;
  if (
    !algorithm ||
    !digits ||
    !Number.isSafeInteger(period) ||
    !Number.isSafeInteger(recovery_codes_total) ||
    typeof sealedKey !== 'string' ||
    !Array.isArray(hashes) ||
    !hashes.every((hash) => typeof hash === 'string')
  ) {
    throw new Error('stored TOTP credential has an unexpected shape');
  }
  return {
    params: { recovery_codes_total: recovery_codes_total as number, algorithm, digits, period: period as number },
    secret: { sealed_key: sealedKey, recovery_code_hashes: hashes as string[] },
  };
}

/** The credential once the recovery code with this hash is used up: what the caller stores back. */
export function withoutRecoveryCode(stored: PreparedCredential, hash: string): PreparedCredential {
  const { params, secret } = readStoredTotp(stored);
  const remaining = secret.recovery_code_hashes.filter((candidate) => candidate !== hash);
  return { params: { ...params }, secret: { ...secret, recovery_code_hashes: remaining } };
}
