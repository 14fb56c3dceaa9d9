import { type Static, Type } from 'typebox';
import { MAX_CLIENT_KEYS } from '../oauth/client-keys.ts';
import { scopeTokenPattern } from '../oauth/scope.ts';
import { clientAuthMethods } from '../store/clients/store.ts';
import { accessTokenFormats, clientGrantTypes } from '../store/types.ts';

const ClientFields = {
  client_name: Type.String({ minLength: 1, maxLength: 200 }),
  scopes: Type.Array(Type.String({ pattern: scopeTokenPattern(128) }), { maxItems: 100, uniqueItems: true, description: 'Scopes the client may be granted' }),
  grant_types: Type.Array(Type.Enum(clientGrantTypes), { minItems: 1, uniqueItems: true }),
  access_token_duration: Type.Integer({ minimum: 60, maximum: 86_400, description: "Seconds; capped by the organisation's token_lifetime_ceiling" }),
  access_token_format: Type.Enum(accessTokenFormats, { description: 'Format of client_credentials tokens' }),
  token_endpoint_auth_method: Type.Enum(clientAuthMethods, {
    description:
      'How the client authenticates at the token endpoint (RFC 7591). The secret methods accept each other; private_key_jwt and spiffe_jwt (draft-ietf-oauth-spiffe-client-auth-02) are given no secret',
  }),
  jwks_uri: Type.String({
    minLength: 1,
    maxLength: 2048,
    description: 'private_key_jwt: where the client publishes its public keys (https); fetched and cached, refetched on an unknown kid at most once a minute',
  }),
  spiffe_id: Type.String({ minLength: 1, maxLength: 2048, description: 'spiffe_jwt: the SPIFFE ID its JWT-SVIDs name as sub' }),
  jwks: Type.Object(
    {
      keys: Type.Array(
        Type.Object(
          {
            kty: Type.String({ maxLength: 16 }),
            kid: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
            crv: Type.Optional(Type.String({ maxLength: 16 })),
            // base64url of a P-256 or Ed25519 coordinate, and of a modulus of at most 4096 bits
            x: Type.Optional(Type.String({ maxLength: 64 })),
            y: Type.Optional(Type.String({ maxLength: 64 })),
            n: Type.Optional(Type.String({ maxLength: 700 })),
            e: Type.Optional(Type.String({ maxLength: 12 })),
            alg: Type.Optional(Type.String({ maxLength: 16 })),
            use: Type.Optional(Type.String({ maxLength: 8 })),
          },
          // Other members (d, k, key_ops, x5c…) pass the schema to be refused by name or dropped (client-keys.ts).
          { additionalProperties: true },
        ),
        { minItems: 1, maxItems: MAX_CLIENT_KEYS },
      ),
    },
    { additionalProperties: false, description: 'private_key_jwt: the public keys its assertions are signed with (RFC 7517 JWK Set)' },
  ),
};
/** POST /oauth2/clients's body; the console's form is checked against it too. */
export const NewClient = Type.Object(
  {
    client_name: ClientFields.client_name,
    grant_types: ClientFields.grant_types,
    scopes: Type.Optional(ClientFields.scopes),
    access_token_duration: Type.Optional(ClientFields.access_token_duration),
    access_token_format: Type.Optional(ClientFields.access_token_format),
    token_endpoint_auth_method: Type.Optional(ClientFields.token_endpoint_auth_method),
    jwks: Type.Optional(ClientFields.jwks),
    jwks_uri: Type.Optional(ClientFields.jwks_uri),
    spiffe_id: Type.Optional(ClientFields.spiffe_id),
  },
  { additionalProperties: false },
);
export type NewClient = Static<typeof NewClient>;

/** PATCH /oauth2/clients/{id}'s body: a method and what it uses (the other members stay as they are). */
export const ClientAuthenticationChange = Type.Object(
  {
    token_endpoint_auth_method: ClientFields.token_endpoint_auth_method,
    jwks: Type.Optional(ClientFields.jwks),
    jwks_uri: Type.Optional(ClientFields.jwks_uri),
    spiffe_id: Type.Optional(ClientFields.spiffe_id),
  },
  { additionalProperties: false },
);

export const ClientView = Type.Object({
  client_id: Type.String(),
  ...ClientFields,
  jwks: Type.Optional(ClientFields.jwks),
  jwks_uri: Type.Optional(ClientFields.jwks_uri),
  spiffe_id: Type.Optional(ClientFields.spiffe_id),
  created_at: Type.String({ format: 'date-time' }),
});
export const ClientSecret = Type.Object({ client_secret: Type.String({ description: 'Shown once; only its hash is stored' }) });
/** A registration's answer: a secret client's secret, shown once; a keyed client has none. */
export const RegisteredClient = Type.Intersect([ClientView, Type.Partial(ClientSecret)]);
export const ClientParams = Type.Object({ client_id: Type.String({ minLength: 1, maxLength: 64 }) });
