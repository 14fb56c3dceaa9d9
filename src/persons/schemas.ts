import { Type } from 'typebox';
import { MAX_TOKEN_LIFETIME_SECONDS } from '../config/defaults.ts';
import { PageQuery } from '../http/pagination.ts';
import { SCOPE_LIST_PATTERN } from '../oauth/scope.ts';
import { handleTypes, personRoles } from '../store/types.ts';

const HandleSchema = Type.Object(
  {
    type: Type.Enum(handleTypes),
    value: Type.String({ minLength: 1, maxLength: 254, description: 'Email address, or E.164 phone number' }),
  },
  { additionalProperties: false },
);
const Roles = Type.Array(Type.Enum(personRoles), { uniqueItems: true, maxItems: personRoles.length });

export const PersonView = Type.Object({
  id: Type.String(),
  handles: Type.Array(HandleSchema),
  roles: Roles,
  console: Type.Boolean({ description: "Member of the organisation's console" }),
  created_at: Type.String({ format: 'date-time' }),
});
/** POST /persons's body; the console's form is checked against it too. */
export const NewPerson = Type.Object(
  {
    handles: Type.Array(HandleSchema, { maxItems: 10, default: [], description: 'Unique per organisation' }),
    roles: Type.Optional(Roles),
    console: Type.Optional(Type.Boolean({ default: false })),
  },
  { additionalProperties: false },
);
export const PersonParams = Type.Object({ person_id: Type.String({ minLength: 1, maxLength: 64 }) });
/** PATCH /persons/{person_id}'s body; the console's form is checked against it too. */
export const AccessChange = Type.Object(
  { roles: Type.Optional(Roles), console: Type.Optional(Type.Boolean({ description: "Member of the organisation's console" })) },
  { additionalProperties: false, minProperties: 1 },
);

/** GET /persons's query: the page, and optionally which persons (only those whose password must be reset). */
export const PersonListQuery = Type.Object(
  {
    limit: PageQuery.properties.limit,
    cursor: PageQuery.properties.cursor,
    credential: Type.Optional(
      Type.Literal('over_budget', {
        description:
          "Only persons holding a password hash over today's cost ceilings (imported under an earlier release's): such a hash is never verified, so they cannot log in with that password until it is replaced (docs/credentials.md, Failure time)",
      }),
    ),
  },
  { additionalProperties: false },
);

export const MintRequest = Type.Object(
  {
    expires_in: Type.Optional(
      Type.Integer({ minimum: 60, maximum: MAX_TOKEN_LIFETIME_SECONDS, description: "Seconds; capped by the organisation's token_lifetime_ceiling" }),
    ),
    scope: Type.Optional(Type.String({ maxLength: 2048, pattern: SCOPE_LIST_PATTERN, description: 'Space-delimited scopes carried by the token' })),
    may_act: Type.Optional(
      Type.Object(
        { sub: Type.String({ minLength: 1, maxLength: 2048 }) },
        { additionalProperties: false, description: 'RFC 8693 §4.4: the only actor allowed to act for this person' },
      ),
    ),
  },
  { additionalProperties: false },
);
export const Minted = Type.Object({ token: Type.String(), person_id: Type.String(), expires_in: Type.Integer() });
