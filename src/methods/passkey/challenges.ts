import { SWEEP_LIMIT } from '../../concurrency/in-batches.ts';
import { newId } from '../../crypto/ids.ts';
import type { WebAuthnChallenge, WebAuthnChallengePurpose, WebAuthnChallengeStore } from '../../store/webauthn-challenges/store.ts';
import { CHALLENGE_TTL_MS } from './index.ts';

/**
 * Keeps the challenge of options just made, for CHALLENGE_TTL_MS, and sweeps the expired ones
 * nobody came back for (so the table holds at most five minutes of ceremonies). Returns its id.
 */
export async function keepChallenge(
  store: WebAuthnChallengeStore,
  at: number,
  fields: { orgId: string; purpose: WebAuthnChallengePurpose; personId: string | null; subject: string; challenge: string },
): Promise<string> {
  const challenge: WebAuthnChallenge = { id: newId('wch', at), ...fields, createdAt: at, expiresAt: at + CHALLENGE_TTL_MS };
  await store.createWebAuthnChallenge(challenge);
  await store.purgeExpiredWebAuthnChallenges(at, SWEEP_LIMIT);
  return challenge.id;
}
