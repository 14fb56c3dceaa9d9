import type { Store } from '../../src/store/store.ts';

/** What another request does to a credential between a login's read and its compare-and-set. */
export type CredentialWrite = (store: Store, credentialId: string, orgId: string) => Promise<void>;

/**
 * A store wrapper for race tests: before each of the next `times` compare-and-sets on one
 * credential (`updateCredentialIf`), another write lands first, so the login's expected
 * version is stale. Counts the compare-and-sets tried on that credential.
 */
export function interferingStore() {
  let target: { credentialId: string; times: number; write: CredentialWrite } | undefined;
  let rounds = 0;
  const wrapStore = (store: Store): Store =>
    new Proxy(store, {
      get(inner, property) {
        if (property === 'updateCredentialIf') {
          const update: Store['updateCredentialIf'] = async (orgId, id, expectedVersion, next) => {
            if (target?.credentialId === id) {
              rounds += 1;
              if (target.times > 0) {
                target.times -= 1;
                await target.write(inner, id, orgId);
              }
            }
            return inner.updateCredentialIf(orgId, id, expectedVersion, next);
          };
          return update;
        }
        const value = Reflect.get(inner, property, inner);
        return typeof value === 'function' ? value.bind(inner) : value;
      },
    });
  return {
    wrapStore,
    /** From now on, `write` lands before each of the next `times` compare-and-sets on `credentialId`; the count starts again. */
    interfere(credentialId: string, times: number, write: CredentialWrite) {
      target = { credentialId, times, write };
      rounds = 0;
    },
    stop() {
      target = undefined;
    },
    rounds: () => rounds,
  };
}
