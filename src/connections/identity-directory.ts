import type { SecretBox } from '../crypto/secret-box.ts';
import { usableEmail } from '../scim-user/user-resource.ts';
import type { ConnectionStore } from '../store/connections/store.ts';
import type { IdentityStore } from '../store/identities/store.ts';
import type { DirectoryIdentity, IdentityRef } from './directory-identity.ts';
import type { PullOptions, ScimPullClient } from './scim-pull-client.ts';

/**
 * The one question verification asks of a connection: who is this identity now? For a
 * `scim` connection the answer is what the provider last pushed; for `scim_pull` the provider
 * is asked at that moment, so a removal is seen before any push. undefined: the connection or
 * the identity does not exist (deleted, or never there). Throws ApiError
 * IDENTITY_SOURCE_UNAVAILABLE (503, Retry-After) when the provider cannot be read: the
 * caller must then fail closed.
 */
export interface IdentityDirectory {
  lookup(orgId: string, connectionId: string, by: IdentityRef): Promise<DirectoryIdentity | undefined>;
}

export function identityDirectory(store: ConnectionStore & IdentityStore, box: SecretBox, pull: PullOptions = {}): IdentityDirectory {
  // scim_pull asks the provider through undici (~110 modules): imported with the first such
  // lookup rather than at start-up, for memory.
  let client: Promise<ScimPullClient> | undefined;
  return {
    async lookup(orgId, connectionId, by) {
      const connection = await store.getConnection(orgId, connectionId);
      if (!connection) return undefined;
      if (connection.type === 'scim_pull') {
        client ??= import('./scim-pull-client.ts').then(({ ScimPullClient }) => new ScimPullClient(pull));
        return (await client).lookup(connection.baseUrl ?? '', box.open(connection.sealedBearerToken ?? ''), by);
      }
      const identity =
        'identityId' in by
          ? await store.getIdentity(orgId, connectionId, by.identityId)
          : (await store.findIdentities(orgId, connectionId, { conditions: [{ attribute: 'email', value: by.email }], offset: 0, count: 1 })).items[0];
      // usableEmail again: a row written before SCIM checked emails may hold a list.
      if (!identity) return undefined;
      return {
        identityId: identity.id,
        email: usableEmail(identity.email),
        active: typeof identity.attributes.active === 'boolean' ? identity.active : null,
        deactivatedBefore: identity.deactivatedAt !== null,
        displayName: identity.displayName,
      };
    },
  };
}
