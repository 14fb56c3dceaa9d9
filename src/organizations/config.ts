import { type Static, Type } from 'typebox';
import { type Operator, recordAdminEvent } from '../audit/admin-events.ts';
import { MAX_TOKEN_LIFETIME_SECONDS } from '../config/defaults.ts';
import { invalidField } from '../errors/api-error.ts';
import type { Organization, OrganizationConfig } from '../store/organizations/store.ts';
import type { TransactionalStore } from '../store/store.ts';
import { checkOrganizationConfig } from './config-rules.ts';

export const ConfigView = Type.Object({
  token_lifetime_ceiling: Type.Integer({ minimum: 60, maximum: MAX_TOKEN_LIFETIME_SECONDS, description: 'Seconds; no token of the organisation lives longer' }),
  svid_jwks_urls: Type.Record(Type.String(), Type.String({ maxLength: 2048 }), {
    propertyNames: { pattern: '^[a-z0-9._-]{1,255}$' },
    maxProperties: 64,
    description: 'SPIFFE trust domain → JWKS URL of its JWT-SVID keys (https; loopback http only with TESSERA_DEV=1)',
  }),
  allowed_spiffe_ids: Type.Array(Type.String({ maxLength: 2048 }), { maxItems: 1000, uniqueItems: true }),
  email_sender: Type.Union([Type.String({ maxLength: 254 }), Type.Null()], { description: 'From address of verification emails' }),
  email_sender_name: Type.Union([Type.String({ minLength: 1, maxLength: 100 }), Type.Null()], {
    description: "Display name of verification emails' From header and their wording (null: the organisation's name)",
  }),
  webauthn_rp_id: Type.Union([Type.String({ maxLength: 253 }), Type.Null()], {
    description: 'WebAuthn relying party id: the registrable domain passkeys are bound to (null: passkey login and registration are off)',
  }),
  webauthn_origins: Type.Array(Type.String({ maxLength: 2048 }), {
    maxItems: 20,
    uniqueItems: true,
    description: 'Origins of the pages that run WebAuthn ceremonies: https, or http for localhost only; each on webauthn_rp_id or a subdomain of it',
  }),
  webauthn_refuse_clone_warning: Type.Boolean({ description: 'Refuse a passkey login whose signature counter did not increase' }),
});
/** PATCH /organizations/config's body; the console's form is checked against it too. */
export const ConfigPatch = Type.Partial(ConfigView, { additionalProperties: false, minProperties: 1 });
export type ConfigPatch = Static<typeof ConfigPatch>;

/**
 * Applies a patch that ConfigPatch admitted, atomically, if the resulting configuration keeps
 * the rules JSON Schema cannot say (checkOrganizationConfig); otherwise throws INVALID_FIELD
 * naming the field (`body.webauthn_origins[0]`) and nothing is saved. Undefined when the
 * organisation is gone.
 */
export function changeOrganizationConfig(
  store: TransactionalStore,
  orgId: string,
  patch: ConfigPatch,
  options: { dev: boolean },
  operator: Operator,
  now = Date.now(),
): Promise<Organization | undefined> {
  return store.inTransaction(async (tx) => {
    let changed: string[] = [];
    const updated = await tx.updateOrganizationConfig(orgId, (current) => {
      const config: OrganizationConfig = { ...current, ...patch };
      const problem = checkOrganizationConfig(config, options);
      if (problem) throw invalidField(`body.${problem.field}`, problem.rule);
      changed = changedFields(current, config);
      return config;
    });
    // The field names only: a value may be long (a list of SPIFFE ids), and the log says who changed what.
    // A PATCH that changed nothing is no change: nothing to record.
    if (updated && changed.length > 0) await recordAdminEvent(tx, now, orgId, operator, 'organization.config_changed', { fields: changed });
    return updated;
  });
}

/** The configuration fields whose values differ, in the configuration's order. */
function changedFields(before: OrganizationConfig, after: OrganizationConfig): string[] {
  return (Object.keys(after) as (keyof OrganizationConfig)[]).filter((name) => JSON.stringify(before[name]) !== JSON.stringify(after[name]));
}
