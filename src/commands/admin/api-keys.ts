import type { Static } from 'typebox';
import { createApiKey, presentKey, revokeApiKey } from '../../organizations/operations.ts';
import { NewApiKey } from '../../organizations/schemas.ts';
import type { ApiKey } from '../../store/organizations/store.ts';
import type { Store } from '../../store/store.ts';
import { CommandRefusal } from '../command.ts';
import { adminCommand } from './admin-command.ts';
import { checkBody, type FieldNames } from './option-terms.ts';
import { allPages, summary } from './output.ts';

const KEY_FIELDS: FieldNames = { 'body.name': '--name', 'body.kind': '--kind' };

/** The key --key names: by id, else by name (names are unique in an organisation). */
async function keyNamed(store: Store, orgId: string, given: string): Promise<ApiKey> {
  const byId = await store.getApiKey(orgId, given);
  if (byId) return byId;
  const byName = (
    await allPages(
      (page) => store.listApiKeys(orgId, page),
      (k) => k.id,
    )
  ).find((key) => key.name === given);
  if (!byName) throw new CommandRefusal(`--key: no API key of this organisation has the id or name ${JSON.stringify(given)}`);
  return byName;
}

export const createApiKeyCommand = adminCommand({
  name: 'admin create-api-key',
  description: `Creates an API key of the organisation and prints it: an admin key manages the
organisation (everything these commands do), an integration key may only call
/integrations/*. The key is shown only now: Tessera stores only its hash. The same rules
as POST /organizations/api-keys; audited as api_key.created, operator cli.`,
  options: {
    name: { value: 'NAME', required: true, help: 'key name, unique in the organisation, 1 to 100 characters' },
    kind: { value: 'KIND', required: true, help: 'admin or integration' },
  },
  json: 'print the key as the API shows it, with api_key, on one line',
  fields: KEY_FIELDS,
  async run({ store, org, operator }, options) {
    const body = { name: options.name, kind: options.kind };
    checkBody(NewApiKey, body, KEY_FIELDS);
    const { key, secret } = await createApiKey(store, org.id, body as Static<typeof NewApiKey>, operator);
    const text = summary(
      `Created ${key.kind} API key "${key.name}" in "${org.name}"`,
      [
        ['key id', key.id],
        ['api key', secret],
      ],
      `The key is shown only now. Send both on every call:\n  -H 'Service-OrgID: ${org.id}' -H 'Service-API-Key: ${secret}'`,
    );
    return { text, json: { ...presentKey(key), api_key: secret } };
  },
});

export const revokeApiKeyCommand = adminCommand({
  name: 'admin revoke-api-key',
  description: `Revokes an API key: it stops working at once. Never the organisation's last admin key,
as in the API and the console. Audited as api_key.revoked, operator cli.`,
  options: { key: { value: 'KEY', required: true, help: 'the key: its id (key_…) or its name' } },
  json: 'print {"key_id": …, "revoked": true}',
  async run({ store, org, operator }, options) {
    const key = await keyNamed(store, org.id, options.key);
    await revokeApiKey(store, { orgId: org.id, keyId: key.id, field: '--key' }, operator);
    return { text: `Revoked ${key.kind} API key "${key.name}" (${key.id}).\n`, json: { key_id: key.id, revoked: true } };
  },
});
