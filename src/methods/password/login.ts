import type { CheckOutcome, LoginMethod } from '../../authn/login-flow.ts';
import { ApiError } from '../../errors/api-error.ts';
import { recordEvent } from '../../store/audit/record-event.ts';
import type { AuditStore } from '../../store/audit/store.ts';
import type { Credential, CredentialStore } from '../../store/credentials/store.ts';
import {
  type HashWorkPool,
  hashPassword,
  isOverBudget,
  isWeakerThanPolicy,
  OWASP_ARGON2ID_POLICY,
  type PasswordHashPolicy,
  parsePasswordHash,
  storedPasswordHash,
  verifyPassword,
  verifyWithoutCredential,
} from './index.ts';

export interface PasswordMethodDeps {
  store: CredentialStore & AuditStore;
  pool: HashWorkPool;
  policy?: PasswordHashPolicy;
  now: () => number;
}

/** `POST /authn/password`: the password against the person's imported hashes (RFC 8176 `pwd`). */
export function passwordMethod(password: string, { store, pool, policy = OWASP_ARGON2ID_POLICY, now }: PasswordMethodDeps): LoginMethod {
  return {
    method: 'password',
    credentialType: 'password',
    amr: ['pwd'],
    failuresWaitForTheBudget: true,
    async withoutCredential() {
      await verifyWithoutCredential(password, pool, policy);
    },
    async check(_orgId, credentials): Promise<CheckOutcome> {
      let judged = false;
      try {
        // A person holds one password (a second is refused at import). Releases before let several
        // be stored: only the newest is checked, so that a failure costs one hash, as a stranger's does.
        for (const credential of newestOnly(credentials)) {
          const hash = parsePasswordHash(storedPasswordHash(credential));
          // Stored under an earlier release's higher ceilings: never verified, or each guess would
          // hold a hash thread for seconds (over-budget.ts). Its person is listed for reset.
          if (isOverBudget(hash)) continue;
          if (await verifyPassword(hash, password, pool)) return { kind: 'success', credential, method: 'password' };
          judged = true;
        }
        // Every failure is answered at the failure time (the login flow waits), but the hash
        // threads are shared: a failure that skipped the work, or checked a hash cheaper than the
        // policy, costs a policy-cost check too, so that under load it waits in the queue as long.
        if (!judged || credentials.every((credential) => isWeakerThanPolicy(storedPasswordHash(credential), policy))) {
          await verifyWithoutCredential(password, pool, policy);
        }
      } catch (error) {
        // Once a hash has said "wrong", a full queue afterwards must not take the attempt back
        // (the login flow uncounts what throws): a 503 would then mean "wrong, and free".
        if (!(judged && error instanceof ApiError && error.code === 'PASSWORD_CHECKS_BUSY')) throw error;
      }
      return { kind: 'failure', reason: judged ? 'wrong_secret' : 'over_budget' };
    },
    afterSuccess: (orgId, credential) => upgradeIfWeak(orgId, credential, password, { store, pool, policy, now }),
  };
}

/**
 * Replaces a hash weaker than the policy by argon2id under it, now that the password is known
 * to be right. Best effort: the login has succeeded either way, so a full hashing queue or a
 * concurrent change of the credential (another login upgraded it first) leaves it for next time.
 */
async function upgradeIfWeak(orgId: string, credential: Credential, password: string, deps: Required<PasswordMethodDeps>): Promise<void> {
  const old = parsePasswordHash(storedPasswordHash(credential));
  if (!isWeakerThanPolicy(old, deps.policy)) return;
  let upgraded: string;
  try {
    upgraded = await hashPassword(password, deps.pool, deps.policy);
  } catch (error) {
    if (error instanceof ApiError && error.code === 'PASSWORD_CHECKS_BUSY') return;
    throw error;
  }
  const next = { params: { ...credential.params, password_hash: upgraded }, secret: { ...credential.secret, password_hash: upgraded } };
  if (!(await deps.store.updateCredentialIf(orgId, credential.id, credential.version, next))) return;
  const at = deps.now();
  await recordEvent(deps.store, at, orgId, 'authn.password_upgraded', {
    person_id: credential.personId,
    credential_id: credential.id,
    from: old.function,
    to: 'argon2id',
  });
}

function newestOnly(credentials: readonly Credential[]): Credential[] {
  const newest = credentials.reduce<Credential | undefined>((kept, one) => (kept === undefined || one.createdAt > kept.createdAt ? one : kept), undefined);
  return newest ? [newest] : [];
}
