import { invalidField } from '../../errors/api-error.ts';
import type { OrganizationStore } from '../../store/organizations/store.ts';
import type { Organization } from '../../store/types.ts';

/** The organisation named by its name (what people know) or its id; undefined for none. */
export async function findOrganizationNamed(store: OrganizationStore, name: string): Promise<Organization | undefined> {
  // An id first when it looks like one, then the name: an organisation may be named org_… too.
  return (name.startsWith('org_') ? await store.getOrganization(name) : undefined) ?? (await store.getOrganizationByName(name));
}

/** The organisation a sign-in names, by its name or its id; 400 naming the field otherwise. */
export async function organizationNamed(store: OrganizationStore, text: string, field = 'organization'): Promise<Organization> {
  const name = text.trim();
  if (name === '') throw invalidField(field, 'is required: the name or id of your organisation');
  if (name.length > 100) throw invalidField(field, 'must be at most 100 characters');
  const org = await findOrganizationNamed(store, name);
  if (!org) throw invalidField(field, 'no organisation has this name or id');
  return org;
}
