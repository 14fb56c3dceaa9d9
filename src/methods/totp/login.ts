import type { CheckOutcome, LoginMethod } from '../../authn/login-flow.ts';
import type { CredentialTypeContext } from '../../credentials/credential-type.ts';
import type { Credential, CredentialStore } from '../../store/credentials/store.ts';
import { spendCode } from './spend.ts';

export interface TotpMethodDeps {
  store: CredentialStore;
  context: CredentialTypeContext;
  now: () => number;
}

/**
 * Compare-and-set rounds per credential. A lost round means another request changed the
 * credential; the re-read then shows the step or recovery code spent (a failure), or an
 * unrelated change (retried). Bounded so that a storm of changes cannot hold a request.
 */
const MAX_SPEND_ROUNDS = 5;

/**
 * `POST /authn/totp`: the current TOTP code (±1 step, each step once) or an unused recovery
 * code (each once), RFC 8176 `otp` either way. A success is only reported once the compare-and-
 * set that spends the step or code has won, so fifty concurrent uses yield one login.
 */
export function totpMethod(code: string, { store, context, now }: TotpMethodDeps): LoginMethod {
  return {
    method: 'totp',
    credentialType: 'totp',
    amr: ['otp'],
    // A failure takes the failure time, as a password's does: a handle that names a person costs
    // a read of their credentials and an audit write that a stranger's does not (about 1 ms, which
    // a median over a few hundred tries shows).
    failuresWaitForTheBudget: true,
    // A TOTP check is a few HMACs, not a password hash: there is no work worth imitating.
    async withoutCredential() {},
    async check(orgId, credentials): Promise<CheckOutcome> {
      let reason = 'wrong_secret';
      for (const listed of credentials) {
        let credential: Credential | undefined = listed;
        for (let round = 0; credential && round < MAX_SPEND_ROUNDS; round++) {
          const spend = spendCode(credential, code, context, now());
          if (spend.kind !== 'spend') {
            if (spend.kind === 'replayed') reason = 'replayed';
            break;
          }
          if (await store.updateCredentialIf(orgId, credential.id, credential.version, spend.next)) {
            return { kind: 'success', credential, method: spend.method };
          }
          reason = 'contended';
          credential = await store.getCredential(orgId, credential.personId, credential.id);
        }
      }
      return { kind: 'failure', reason };
    },
  };
}
