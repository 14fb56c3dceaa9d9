import { Type } from 'typebox';
import { tenantUrlProblem } from '../egress/address-policy.ts';
import { connectionTypes, type IdentityConnection } from '../store/connections/store.ts';

export const ConnectionView = Type.Object({
  id: Type.String(),
  name: Type.String(),
  type: Type.Enum(connectionTypes),
  scim_url: Type.Optional(Type.String({ description: 'type scim: the Tenant URL (Entra ID) / SCIM connector base URL (Okta)' })),
  base_url: Type.Optional(Type.String({ description: "type scim_pull: the provider's SCIM base URL" })),
  created_at: Type.String({ format: 'date-time' }),
});

export const NewConnection = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100, pattern: '^\\S(.*\\S)?$', description: 'Unique within the organisation' }),
    type: Type.Enum(connectionTypes, { description: 'scim: the provider pushes Users to /scim/v2; scim_pull: the service reads them from base_url' }),
    base_url: Type.Optional(Type.String({ minLength: 1, maxLength: 2048, description: "type scim_pull: the provider's SCIM base URL (https)" })),
    bearer_token: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 4096,
        pattern: '^[\\x21-\\x7e]+$',
        description: 'type scim_pull: sent as Authorization: Bearer; never shown back',
      }),
    ),
  },
  { additionalProperties: false },
);

export const ScimToken = Type.Object({ scim_token: Type.String({ description: 'Shown once; only its hash is stored' }) });
export const CreatedConnection = Type.Object({ ...ConnectionView.properties, scim_token: Type.Optional(ScimToken.properties.scim_token) });
export const ConnectionParams = Type.Object({ connection_id: Type.String({ minLength: 1, maxLength: 64 }) });

export function presentConnection(connection: IdentityConnection, scimUrl: string) {
  return {
    id: connection.id,
    name: connection.name,
    type: connection.type,
    ...(connection.type === 'scim' ? { scim_url: scimUrl } : { base_url: connection.baseUrl ?? '' }),
    created_at: new Date(connection.createdAt).toISOString(),
  };
}

/** The rule for base_url JSON Schema cannot say: https, http only to loopback in development. */
export function baseUrlProblem(raw: string, dev: boolean): string | undefined {
  return tenantUrlProblem(raw, { dev, allowQuery: false });
}
