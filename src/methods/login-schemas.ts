import { type Static, Type } from 'typebox';
import { invalidField } from '../errors/api-error.ts';
import type { Handle } from '../store/types.ts';
import { handleTypes } from '../store/types.ts';
import { canonicalHandle, handleProblem } from '../validation/handle.ts';
import { MAX_RECOVERY_CODE_LENGTH } from './totp/limits.ts';

/** Design §3: authentication bodies name the person by a handle. */
export const HandleBody = Type.Object(
  {
    type: Type.Enum(handleTypes),
    value: Type.String({ minLength: 1, maxLength: 254, description: 'Email address, or E.164 phone number' }),
  },
  { additionalProperties: false },
);

/** Generous for passphrases; the bound keeps one request from feeding megabytes to a hash. */
export const MAX_PASSWORD_LENGTH = 1024;

export const PasswordLoginBody = Type.Object(
  { handle: HandleBody, password: Type.String({ minLength: 1, maxLength: MAX_PASSWORD_LENGTH }) },
  { additionalProperties: false },
);

/** The ticket of POST /authn/password (`sft_` and 43 base64url characters); the bound only keeps junk short. */
export const SecondFactorTicketField = Type.String({
  minLength: 1,
  maxLength: 128,
  description: 'From POST /authn/password when it answered second_factor_required: completes that sign-in',
});

export const TotpLoginBody = Type.Object(
  {
    handle: Type.Optional({ ...HandleBody, description: 'Who logs in with the code alone (amr otp); or send second_factor_ticket' }),
    second_factor_ticket: Type.Optional(SecondFactorTicketField),
    code: Type.String({ minLength: 1, maxLength: MAX_RECOVERY_CODE_LENGTH, description: 'The current TOTP code, or an unused recovery code' }),
  },
  { additionalProperties: false },
);

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

/**
 * POST /authn/password's answer (design §5): the person JWT, or, for a person who holds a second
 * factor, the ticket that factor completes. A breaking change of release 11: clients branch on
 * `second_factor_required`.
 */
export const PasswordLoginView = Type.Unsafe<Static<typeof PersonLoginView> | Static<typeof SecondFactorRequiredView>>({
  oneOf: [PersonLoginView, SecondFactorRequiredView],
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
