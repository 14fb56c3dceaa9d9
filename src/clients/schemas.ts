import { type Static, Type } from 'typebox';
import { scopeTokenPattern } from '../oauth/scope.ts';
import { accessTokenFormats, clientGrantTypes } from '../store/types.ts';

const ClientFields = {
  client_name: Type.String({ minLength: 1, maxLength: 200 }),
  scopes: Type.Array(Type.String({ pattern: scopeTokenPattern(128) }), { maxItems: 100, uniqueItems: true, description: 'Scopes the client may be granted' }),
  grant_types: Type.Array(Type.Enum(clientGrantTypes), { minItems: 1, uniqueItems: true }),
  access_token_duration: Type.Integer({ minimum: 60, maximum: 86_400, description: "Seconds; capped by the organisation's token_lifetime_ceiling" }),
  access_token_format: Type.Enum(accessTokenFormats, { description: 'Format of client_credentials tokens' }),
};
/** POST /oauth2/clients's body; the console's form is checked against it too. */
export const NewClient = Type.Object(
  {
    client_name: ClientFields.client_name,
    grant_types: ClientFields.grant_types,
    scopes: Type.Optional(ClientFields.scopes),
    access_token_duration: Type.Optional(ClientFields.access_token_duration),
    access_token_format: Type.Optional(ClientFields.access_token_format),
  },
  { additionalProperties: false },
);
export type NewClient = Static<typeof NewClient>;

export const ClientView = Type.Object({ client_id: Type.String(), ...ClientFields, created_at: Type.String({ format: 'date-time' }) });
export const ClientSecret = Type.Object({ client_secret: Type.String({ description: 'Shown once; only its hash is stored' }) });
export const ClientParams = Type.Object({ client_id: Type.String({ minLength: 1, maxLength: 64 }) });
