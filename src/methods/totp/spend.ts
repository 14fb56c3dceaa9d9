import type { CredentialTypeContext } from '../../credentials/credential-type.ts';
import type { Credential, CredentialData } from '../../store/credentials/store.ts';
import { matchRecoveryCode, verifyTotp, withoutRecoveryCode } from './index.ts';

/**
 * Where a TOTP credential remembers the last time step a code was accepted for: in `secret`,
 * which is never shown, beside the key. A step at or before it is refused (each step once).
 */
export const LAST_USED_STEP = 'last_used_step';

/** What a code would spend: a time step or a recovery code, as the credential's next version. */
export type TotpSpend = { kind: 'spend'; method: 'totp' | 'recovery_code'; next: CredentialData } | { kind: 'replayed' } | { kind: 'no_match' };

/**
 * The last step accepted, or -Infinity when none was: every step is after it. Only withUsedStep
 * writes the field, always a number (no API sets `secret`); asked once verifyTotp has read the secret.
 */
function lastUsedStep(credential: Pick<Credential, 'secret'>): number {
  // Stryker disable next-line OptionalChaining: spendCode asks only after verifyTotp accepted the secret (readStoredTotp throws on a null one)
  return (credential.secret?.[LAST_USED_STEP] ?? -Infinity) as number;
}

/** `secret` with the step recorded as used. */
export function withUsedStep(secret: Credential['secret'], step: number): Record<string, unknown> {
  return { ...secret, [LAST_USED_STEP]: step };
}

/**
 * What `code` spends of `credential` at `nowMs`, computed from this version only: the caller
 * writes `next` with a compare-and-set on the version, so of concurrent uses one wins.
 */
export function spendCode(credential: Credential, code: string, context: CredentialTypeContext, nowMs: number): TotpSpend {
  const step = verifyTotp(code, credential, context, nowMs);
  if (step !== undefined) {
    if (step <= lastUsedStep(credential)) return { kind: 'replayed' };
    return { kind: 'spend', method: 'totp', next: { params: { ...credential.params }, secret: withUsedStep(credential.secret, step) } };
  }
  const match = matchRecoveryCode(code, credential, context);
  if (!match) return { kind: 'no_match' };
  // withoutRecoveryCode keeps only the type's own fields; the used step is carried over here.
  const { secret } = withoutRecoveryCode(credential, match.hash);
  return { kind: 'spend', method: 'recovery_code', next: { params: { ...credential.params }, secret: { ...credential.secret, ...secret } } };
}
