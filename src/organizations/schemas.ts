import { type Static, Type } from 'typebox';
import { MAX_TOKEN_LIFETIME_SECONDS } from '../config/defaults.ts';
import { apiKeyKinds } from '../store/types.ts';

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

export const ApiKeyView = Type.Object({
  id: Type.String(),
  name: Type.String(),
  kind: Type.Enum(apiKeyKinds),
  created_at: Type.String({ format: 'date-time' }),
});
/** The console's key form is checked against it too. */
export const NewApiKey = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100, pattern: '^\\S(.*\\S)?$', description: 'Unique within the organisation' }),
    kind: Type.Enum(apiKeyKinds, { description: 'admin manages the organisation; integration may only call /integrations/*' }),
  },
  { additionalProperties: false },
);
export const CreatedApiKey = Type.Intersect([ApiKeyView, Type.Object({ api_key: Type.String({ description: 'Shown once; only its hash is stored' }) })]);
