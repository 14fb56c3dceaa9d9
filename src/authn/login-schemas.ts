import { Type } from 'typebox';
import { invalidField } from '../errors/api-error.ts';
import { commonErrors, ErrorEnvelope } from '../http/envelope.ts';
import type { Handle } from '../store/types.ts';
import { handleTypes } from '../store/types.ts';
import { canonicalHandle, handleProblem } from '../validation/handle.ts';

/** What the document says of every login route: no API key, only Service-OrgID. */
export const loginRouteDocs = { tags: ['authentication'], security: [{ orgId: [] }] };
/** 429 comes from the attempt limiter (or, for passwords, the per-address bound), 503 from a full hashing queue; with Retry-After when waiting helps. */
export const loginErrors = { ...commonErrors, 429: ErrorEnvelope };

/** Design §3: authentication bodies name the person by a handle. */
export const HandleBody = Type.Object(
  {
    type: Type.Enum(handleTypes),
    value: Type.String({ minLength: 1, maxLength: 254, description: 'Email address, or E.164 phone number' }),
  },
  { additionalProperties: false },
);

/** The ticket of POST /authn/password (`sft_` and 43 base64url characters); the bound only keeps junk short. */
export const SecondFactorTicketField = Type.String({
  minLength: 1,
  maxLength: 128,
  description: 'From POST /authn/password when it answered second_factor_required: completes that sign-in',
});

export const PersonLoginView = Type.Object({
  token: Type.String({ description: 'A person JWT (RFC 9068) with amr, auth_time and gen' }),
  person_id: Type.String(),
});

export const SecondFactorRequiredView = Type.Object({
  second_factor_required: Type.Literal(true),
  second_factor_ticket: Type.String({
    description: 'Shown once; completes the sign-in with POST /authn/totp or the passkey login, within 5 minutes and 5 attempts',
  }),
  expires_at: Type.String({ format: 'date-time' }),
  second_factors: Type.Array(Type.Enum(['totp', 'passkey']), {
    description: 'What the person holds: totp (a TOTP code or a recovery code), passkey',
  }),
});

/** Exactly one of `handle` and `second_factor_ticket` names whose login it is; 400 naming both otherwise. */
export function handleOrTicket(body: { handle?: Handle | undefined; second_factor_ticket?: string | undefined }): void {
  if ((body.handle === undefined) === (body.second_factor_ticket === undefined)) {
    throw invalidField('body', 'must have exactly one of handle (a login with this factor alone) and second_factor_ticket (the second step after a password)');
  }
}

/**
 * The handle in the one spelling persons are found by. A value that cannot be a handle is a
 * 400 naming it: it names nobody, so saying so reveals nothing about who exists.
 */
export function canonicalLoginHandle(handle: Handle): Handle {
  const canonical = canonicalHandle(handle);
  const problem = handleProblem(canonical);
  if (problem) throw invalidField('body.handle.value', problem);
  return canonical;
}
