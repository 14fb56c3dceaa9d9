import { Type } from 'typebox';
import { MAX_RECOVERY_CODE_LENGTH } from '../credentials/totp/limits.ts';
import { invalidField } from '../errors/api-error.ts';
import type { Handle } from '../store/types.ts';
import { handleTypes } from '../store/types.ts';
import { canonicalHandle, handleProblem } from '../validation/handle.ts';

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

export const TotpLoginBody = Type.Object(
  {
    handle: HandleBody,
    code: Type.String({ minLength: 1, maxLength: MAX_RECOVERY_CODE_LENGTH, description: 'The current TOTP code, or an unused recovery code' }),
  },
  { additionalProperties: false },
);

export const PersonLoginView = Type.Object({ token: Type.String({ description: 'A person JWT (RFC 9068) with amr' }), person_id: Type.String() });

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
