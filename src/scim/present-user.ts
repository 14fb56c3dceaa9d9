import { USER_SCHEMA } from '../scim-user/schema.ts';
import type { Identity } from '../store/identities/store.ts';

/** The User as GET answers it: id and meta added, schemas listed from what it holds. */
export function presentUser(identity: Identity, baseUrl: string): Record<string, unknown> {
  // Sorted: PostgreSQL's JSONB does not keep member order, so a User read back would list them otherwise than the write's answer did.
  const extensions = Object.keys(identity.attributes)
    .filter((key) => key.startsWith('urn:'))
    .sort();
  return {
    schemas: [USER_SCHEMA, ...extensions],
    id: identity.id,
    ...identity.attributes,
    // What `active` means for this identity, also when the attribute was left out or removed.
    active: identity.active,
    meta: {
      resourceType: 'User',
      created: new Date(identity.createdAt).toISOString(),
      lastModified: new Date(identity.updatedAt).toISOString(),
      location: `${baseUrl}/Users/${identity.id}`,
    },
  };
}
