import { cliOperator } from '../audit/admin-events.ts';
import { newId } from '../crypto/ids.ts';
import { createOrganization, replaceAdminKey } from '../organizations/create-organization.ts';
import type { RunningService } from '../service/service.ts';

export const DEMO_ORG = 'demo';
const DEMO_KEY = 'npm-start';
/** The demo's person: a console person holding verifier (so also the operator of its email verification) and admin. */
export const DEMO_PERSON = 'ada@example.com';

/** Whether the service accepts this admin key for this organisation. */
async function keyWorks(serviceUrl: string, orgId: string, apiKey: string): Promise<boolean> {
  const response = await fetch(`${serviceUrl}/persons?limit=1`, { headers: { 'service-orgid': orgId, 'service-api-key': apiKey } });
  await response.body?.cancel();
  return response.ok;
}

/**
 * The demo organisation and its person, made on the first start and found on later ones.
 * The admin key kept from an earlier start is reused while it works; a new one (revoking the
 * demo's earlier keys) is issued only when none is kept or the kept one was revoked.
 */
export async function ensureDemoOrganization(
  service: RunningService,
  kept: { orgId: string; adminKey: string } | undefined,
): Promise<{ orgId: string; apiKey: string; created: boolean; personId: string }> {
  const { store } = service;
  const existing = await store.getOrganizationByName(DEMO_ORG);
  if (existing) {
    const person = await store.findPersonByHandle(existing.id, { type: 'email_address', value: DEMO_PERSON });
    if (!person)
      throw new Error(
        `the demo organisation has lost ${DEMO_PERSON}; delete the demo's database to start afresh, or give it another (TESSERA_DATA_DIR or TESSERA_DATABASE)`,
      );
    const reusable = kept?.orgId === existing.id && (await keyWorks(service.url, existing.id, kept.adminKey));
    const apiKey = reusable ? kept.adminKey : await replaceAdminKey(store, existing.id, DEMO_KEY);
    return { orgId: existing.id, apiKey, created: false, personId: person.id };
  }
  const { org, apiKey } = await createOrganization(store, DEMO_ORG, { operator: cliOperator(), keyName: DEMO_KEY });
  const personId = newId('per');
  await store.createPerson({
    id: personId,
    orgId: org.id,
    handles: [{ type: 'email_address', value: DEMO_PERSON }],
    roles: ['verifier', 'admin'],
    console: true,
    createdAt: Date.now(),
  });
  return { orgId: org.id, apiKey, created: true, personId };
}
