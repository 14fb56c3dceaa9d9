import { Type } from 'typebox';
import { CODE_PATTERN } from './code.ts';

const Id = Type.String({ minLength: 1, maxLength: 64 });

export const InitiateBody = Type.Object(
  {
    connection_id: Id,
    identity_id: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: "The identity's id in the connection (its SCIM id)" })),
    email: Type.Optional(Type.String({ format: 'email', maxLength: 254, description: 'Or its email address as the directory holds it' })),
  },
  { additionalProperties: false, description: 'Exactly one of identity_id and email' },
);

const VerifyFields = {
  verification_id: Id,
  code: Type.String({ pattern: CODE_PATTERN.source, description: 'The 6 digits the person read from the email' }),
  connection_id: Id,
};

/** Spec §4.3's body: the integration vouches for the operator. */
export const IntegrationVerifyBody = Type.Object(
  {
    ...VerifyFields,
    operator: Type.Object(
      {
        email: Type.String({ format: 'email', maxLength: 254 }),
        assertion: Type.Union([Type.Literal('integration_asserted'), Type.Literal('idp_verified')]),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);

/** At the helpdesk the operator is the caller, so there is no operator to name. */
export const HelpdeskVerifyBody = Type.Object(VerifyFields, { additionalProperties: false });

export const Initiated = Type.Object({ verification_id: Type.String(), expires_at: Type.String({ format: 'date-time' }) });
export const Verified = Type.Object({ verified: Type.Boolean() });
