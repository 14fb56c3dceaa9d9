import { after, before, describe } from 'node:test';
import { organizationConfigDefaults } from '../../src/config/defaults.ts';
import { newId } from '../../src/crypto/ids.ts';
import type { IdentityConnection } from '../../src/store/connections/store.ts';
import { openStore } from '../../src/store/open-store.ts';
import type { Store } from '../../src/store/store.ts';
import type { ApiKey, OAuthClient, OpaqueToken, Organization, OrganizationConfig, Person, SigningKey } from '../../src/store/types.ts';
import { type Backend, backends } from '../helpers/backends.ts';

/**
 * The store contract, one file per module store, each run on every backend over a fresh
 * database. A module's contract names the narrowest store it needs (its own, plus the
 * organisation store where rows must belong to an organisation), though the object under
 * test is always the whole composed Store, as the service uses it.
 */
export function contractOnEveryBackend<Needed extends Partial<Store> = Store>(
  subject: string,
  body: (t: { readonly store: Needed; readonly backend: Backend }) => void,
): void {
  for (const backend of backends()) {
    describe(`${subject} contract on ${backend.name}`, () => {
      let store: Store | undefined;
      let database: Awaited<ReturnType<Backend['fresh']>>;
      before(async () => {
        database = await backend.fresh();
        store = (await openStore(database.url)).store;
      });
      after(async () => {
        await store?.close();
        await database.drop();
      });
      body({
        get store() {
          if (!store) throw new Error('the store is opened before the first test');
          return store as unknown as Needed;
        },
        backend,
      });
    });
  }
}

export const config: OrganizationConfig = { ...organizationConfigDefaults };

export function org(name = `org-${newId('n')}`): Organization {
  return { id: newId('org'), name, config, createdAt: Date.now() };
}

export function key(orgId: string, name = 'first', kind: ApiKey['kind'] = 'admin'): ApiKey {
  return { id: newId('key'), orgId, name, kind, secretHash: newId('hash'), createdAt: Date.now() };
}

/** A new organisation, stored with its first key, for tests about what lives inside one. */
export async function storedOrg(store: Pick<Store, 'createOrganization'>): Promise<Organization> {
  const o = org();
  await store.createOrganization(o, key(o.id));
  return o;
}

export function person(orgId: string, email = `${newId('p')}@example.com`): Person {
  return {
    id: newId('per'),
    orgId,
    handles: [{ type: 'email_address', value: email }],
    roles: ['verifier'],
    console: true,
    createdAt: Date.now(),
    generation: 0,
  };
}

export function signingKey(kid = newId('kid')): SigningKey {
  return { kid, alg: 'ES256', publicJwk: { kty: 'EC', kid }, sealedPrivateJwk: 'sealed', status: 'active', createdAt: Date.now(), retiredAt: null };
}

export function token(orgId: string, parentHash: string | null = null): OpaqueToken {
  return {
    hash: newId('h'),
    orgId,
    clientId: null,
    subject: 'per_x',
    scope: 'read',
    audience: ['https://api.example'],
    resource: [],
    act: { sub: 'cli_a', act: { sub: 'cli_b' } },
    mayAct: { sub: 'cli_a' },
    parentHash,
    issuedAt: 1_000,
    expiresAt: 2_000,
    revokedAt: null,
    personGeneration: null,
  };
}

export function client(orgId: string): OAuthClient {
  return {
    id: newId('cli'),
    orgId,
    name: 'gateway',
    scopes: ['read', 'write'],
    grantTypes: ['client_credentials'],
    accessTokenDuration: 600,
    accessTokenFormat: 'opaque',
    authMethod: 'client_secret_basic',
    secretHash: newId('hash'),
    createdAt: Date.now(),
  };
}

/** When each token was revoked (undefined: gone), read through the token store. */
export function revokedAt(store: Pick<Store, 'findToken'>, ...tokens: OpaqueToken[]): Promise<(number | null | undefined)[]> {
  return Promise.all(tokens.map(async (t) => (await store.findToken(t.hash))?.revokedAt));
}

export function connection(orgId: string, name = newId('n'), type: IdentityConnection['type'] = 'scim'): IdentityConnection {
  return {
    id: newId('con'),
    orgId,
    name,
    type,
    tokenHash: type === 'scim' ? newId('hash') : null,
    baseUrl: type === 'scim' ? null : 'https://idp.example/scim/v2',
    sealedBearerToken: type === 'scim' ? null : 'v1.sealed',
    createdAt: Date.now(),
  };
}
