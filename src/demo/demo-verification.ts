import { hashSecret } from '../crypto/ids.ts';
import { replaceApiKey } from '../organizations/create-organization.ts';
import type { RunningService } from '../service/service.ts';
import { adminApi } from './admin-api.ts';

const CONNECTION_NAME = 'demo directory';
const INTEGRATION_KEY_NAME = 'demo-integration';
/** The one identity of the demo's directory: the person whose email address is verified. */
export const DEMO_IDENTITY = 'grace@example.com';

/** What a later start reuses: the connection's SCIM token and the integration key (secrets, kept 0600). */
export interface DemoVerification {
  connectionId: string;
  scimToken: string;
  integrationKey: string;
}

/** The User an identity provider would push for Grace (Entra ID's body, less its read-only meta). */
const GRACE = {
  schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
  externalId: 'demo-grace',
  userName: DEMO_IDENTITY,
  active: true,
  emails: [{ primary: true, type: 'work', value: DEMO_IDENTITY }],
  name: { givenName: 'Grace', familyName: 'Hopper' },
};

/**
 * What one email verification needs, made on the first start and found on later ones: a `scim`
 * connection ("demo directory") holding grace@example.com, pushed through the service's own
 * SCIM API as a provider would, and an integration key. The SCIM token and the key kept from
 * an earlier start are reused while they work, so a demo that still runs keeps working; Grace
 * is put back (active, at her address) if she was removed or changed in between.
 */
export async function prepareDemoVerification(
  service: RunningService,
  orgId: string,
  adminKey: string,
  kept: DemoVerification | undefined,
): Promise<DemoVerification> {
  const { store } = service;
  const api = adminApi(service.url, orgId, adminKey);
  const connections = (await api('GET', '/organizations/connections?limit=100')) as { id: string; name: string; type: string }[];
  const existing = connections.find((c) => c.name === CONNECTION_NAME && c.type === 'scim');
  let connectionId: string;
  let scimToken: string;
  if (!existing) {
    const created = (await api('POST', '/organizations/connections', { name: CONNECTION_NAME, type: 'scim' })) as { id: string; scim_token: string };
    connectionId = created.id;
    scimToken = created.scim_token;
  } else {
    connectionId = existing.id;
    const connection = await store.getConnection(orgId, existing.id);
    const reusable = kept?.connectionId === existing.id && connection?.tokenHash === hashSecret(kept.scimToken);
    scimToken = reusable ? kept.scimToken : ((await api('POST', `/organizations/connections/${existing.id}/scim-token`)) as { scim_token: string }).scim_token;
  }
  const {
    items: [grace],
  } = await store.findIdentities(orgId, connectionId, { conditions: [{ attribute: 'userName', value: DEMO_IDENTITY }], offset: 0, count: 1 });
  // As verification reads her: active, and her email (the work one) the demo's address.
  if (!grace) await scim(service.url, scimToken, 'POST', '/Users', GRACE);
  else if (!grace.active || grace.email?.toLowerCase() !== DEMO_IDENTITY) await scim(service.url, scimToken, 'PUT', `/Users/${grace.id}`, GRACE);

  const key = kept && (await store.findOrganizationAndKey(orgId, hashSecret(kept.integrationKey)))?.key;
  const integrationKey =
    kept && key?.kind === 'integration' && key.name === INTEGRATION_KEY_NAME
      ? kept.integrationKey
      : await replaceApiKey(store, orgId, INTEGRATION_KEY_NAME, 'integration');
  return { connectionId, scimToken, integrationKey };
}

/** A request to the service's own SCIM API, as the identity provider makes it. */
async function scim(serviceUrl: string, token: string, method: 'POST' | 'PUT', path: string, body: unknown): Promise<void> {
  const response = await fetch(`${serviceUrl}/scim/v2${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/scim+json' },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`SCIM ${method} ${path}: ${response.status} ${await response.text()}`);
  await response.body?.cancel();
}
